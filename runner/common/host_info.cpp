#include "runner/common/host_info.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>

#include <unistd.h>

namespace bb {

namespace {
// Runs a fixed command (no user text reaches the shell except the quoted directory).
bool capture(const std::string& cmd, std::string& out) {
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return false;
  std::array<char, 256> buf{};
  out.clear();
  while (std::fgets(buf.data(), buf.size(), pipe) != nullptr) out += buf.data();
  return pclose(pipe) == 0;
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (const char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}
} // namespace

git_state git_state_of(const std::string& dir) {
  git_state g;
  // A checkout copied without its history (a CI workspace, a copy on a GPU machine) can name the
  // commit it was made from; the copy is then taken as clean.
  if (const char* given = std::getenv("BB_GIT_COMMIT"); given != nullptr && *given != '\0') {
    g.commit = given;
    return g;
  }
  const std::string git = "git -C " + shell_quote(dir.empty() ? "." : dir) + " ";
  std::string out;
  if (!capture(git + "rev-parse HEAD 2>/dev/null", out)) return g;
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  g.commit = out;
  // Untracked files count: a new kernel or header that is not committed yet changes what is built.
  // Ignored files (build folders, results) do not.
  if (capture(git + "status --porcelain --untracked-files=normal 2>/dev/null", out)) g.dirty = !out.empty();
  return g;
}

std::string host_name() {
  std::array<char, 256> buf{};
  if (gethostname(buf.data(), buf.size() - 1) != 0) return "";
  return buf.data();
}

} // namespace bb
