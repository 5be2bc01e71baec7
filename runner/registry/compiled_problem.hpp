#pragma once
/// What a problem compiled at run time (a source variant, runner/source) tells the executor beyond
/// the problem interface. Kept out of registry.hpp, which every built-in kernel includes.
#include <string>

#include "runner/registry/registry.hpp"

namespace bb {

/// How a source variant's kernel was built: the compile cache key and the compile time (0 on a
/// cache hit).
struct compile_info {
  std::string key;
  double ms = 0;
  std::string compiler; ///< "nvrtc 13.0", "nvcc 13.0.88"
  std::string options;  ///< every flag, the architecture first
};

class compiled_problem : public problem {
public:
  [[nodiscard]] virtual const compile_info& compiled() const = 0;
  /// Nothing to check against (no `check:`): verify() says ok, which means it ran, not that it is
  /// right; the configuration is stored with status unverified.
  [[nodiscard]] virtual bool unverified() const = 0;
};

} // namespace bb
