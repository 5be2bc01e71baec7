#include "runner/common/error.hpp"

#include "runner/common/path_text.hpp"

namespace bb {

std::string diagnostic::to_string() const {
  // A file name with a newline or a terminal escape is shown escaped; a plain one as it is.
  std::string out = file.empty() ? std::string("<input>") : shown_path(file);
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
