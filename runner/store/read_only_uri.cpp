#include "runner/store/read_only_uri.hpp"

#include <cctype>
#include <filesystem>

#include <fmt/format.h>

namespace bb::store {

std::string read_only_uri(const std::string& path, bool immutable_always) {
  std::string uri = "file:";
  // Every byte but unreserved ones and '/' percent-encoded, so '?', '#' and '%' in names are safe.
  for (const unsigned char c : std::filesystem::absolute(path).string()) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~')
      uri += static_cast<char>(c);
    else
      uri += fmt::format("%{:02X}", c);
  }
  std::error_code ec;
  const bool has_wal = std::filesystem::exists(path + "-wal", ec);
  return uri + (has_wal && !immutable_always ? "?mode=ro" : "?mode=ro&immutable=1");
}

} // namespace bb::store
