#include "runner/common/child_process.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include <spdlog/spdlog.h>

#include "runner/common/error.hpp"

namespace bb {

std::array<int, 2> open_pipe() {
  std::array<int, 2> fds{};
  if (pipe(fds.data()) != 0) throw api_error(std::string("pipe failed: ") + std::strerror(errno));
  return fds;
}

pid_t fork_flushed() {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw api_error(std::string("fork failed: ") + std::strerror(errno));
  return pid;
}

int wait_for(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

int exit_code_of(const std::function<int()>& body) {
  try {
    return body();
  } catch (const error& e) {
    spdlog::error("{}", e.what());
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    spdlog::error("internal error: {}", e.what());
    return static_cast<int>(exit_code::internal);
  }
}

} // namespace bb
