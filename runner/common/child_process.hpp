#pragma once
/// Small POSIX helpers for the code that starts processes of its own (run --devices,
/// slurm): each throws api_error with the failing call.
#include <sys/types.h>

#include <array>
#include <functional>
#include <string>
#include <vector>

namespace bb {

/// pipe(): [0] to read, [1] to write.
std::array<int, 2> open_pipe();

/// fork() after flushing every stdio stream, so nothing buffered is written twice.
pid_t fork_flushed();

/// waitpid() until it answers; returns the wait status.
int wait_for(pid_t pid);

/// Runs `body`; a bankbench error becomes its exit code and is logged, as main() does.
int exit_code_of(const std::function<int()>& body);

/// What a tool run by run_captured() did.
struct captured {
  int exit_code = 0;   ///< its exit code; 128 + signal when killed; 127 when it could not be started
  std::string output;  ///< standard output and standard error together, in order
  int spawn_errno = 0; ///< set when it could not be started (ENOENT: no such program)
};

/// Runs `argv` (argv[0] a path, or a name searched on PATH) with standard output and error
/// captured, and waits for it. Safe to call from several threads: no descriptor of one call leaks
/// into another's child.
captured run_captured(const std::vector<std::string>& argv);

} // namespace bb
