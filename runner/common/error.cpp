#include "runner/common/error.hpp"

namespace bb {

std::string diagnostic::to_string() const {
  std::string out = file.empty() ? std::string("<input>") : file;
  if (line > 0) {
    out += ':' + std::to_string(line);
    if (column > 0) out += ':' + std::to_string(column);
  }
  out += ": error: ";
  if (!key.empty()) out += key + ": ";
  out += message;
  if (!hint.empty()) out += " (" + hint + ")";
  return out;
}

static std::string join_diagnostics(const std::vector<diagnostic>& diags) {
  std::string out;
  for (const auto& d : diags) {
    if (!out.empty()) out += '\n';
    out += d.to_string();
  }
  return out;
}

config_error::config_error(std::vector<diagnostic> diags)
    : error(exit_code::usage, join_diagnostics(diags)), m_diags(std::move(diags)) {}

} // namespace bb
