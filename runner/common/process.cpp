#include "runner/common/process.hpp"

#include <signal.h>

#include <cerrno>
#include <fstream>
#include <string>

namespace bb {

bool process_alive(std::int64_t pid) {
  if (pid <= 0) return false;
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return false;
  // /proc/PID/stat: "pid (comm) state ..."; comm may hold spaces and parentheses, so read after the last ')'.
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return true; // no /proc: trust kill()
  const auto close = stat.rfind(')');
  return close == std::string::npos || close + 2 >= stat.size() || stat[close + 2] != 'Z';
}

} // namespace bb
