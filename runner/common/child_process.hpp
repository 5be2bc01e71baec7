#pragma once
/// Small POSIX helpers for the code that starts processes of its own (run --devices,
/// slurm): each throws api_error with the failing call.
#include <sys/types.h>

#include <array>
#include <functional>

namespace bb {

/// pipe(): [0] to read, [1] to write.
std::array<int, 2> open_pipe();

/// fork() after flushing every stdio stream, so nothing buffered is written twice.
pid_t fork_flushed();

/// waitpid() until it answers; returns the wait status.
int wait_for(pid_t pid);

/// Runs `body`; a bankbench error becomes its exit code and is logged, as main() does.
int exit_code_of(const std::function<int()>& body);

} // namespace bb
