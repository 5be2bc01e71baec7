#pragma once
#include <string>

namespace bb {

struct git_state {
  std::string commit; ///< full hash, or "" outside a git checkout
  bool dirty = false; ///< tracked files differ from the commit, or untracked (not ignored) files exist
};

/// The git commit of the checkout containing `dir`; never throws.
git_state git_state_of(const std::string& dir);

/// This machine's host name; "" when unknown.
std::string host_name();

} // namespace bb
