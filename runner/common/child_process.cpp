#include "runner/common/child_process.hpp"

#include <fcntl.h>
#include <spawn.h>
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

captured run_captured(const std::vector<std::string>& argv) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw api_error(std::string("pipe2 failed: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  captured out;
  if (rc != 0) {
    close(fds[0]);
    out.exit_code = 127;
    out.spawn_errno = rc;
    return out;
  }
  char chunk[4096];
  for (ssize_t n; (n = read(fds[0], chunk, sizeof chunk)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    out.output.append(chunk, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  const int status = wait_for(pid);
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return out;
}

} // namespace bb
