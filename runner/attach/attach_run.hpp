#pragma once
/// `bankbench attach`: starts a program with the injected library (runner/inject/), answers its
/// questions over a Unix socket, and stores each profiled launch as it arrives, one run per attach
/// (runs.kind 'attach'): the kernel's name is the variant; grid, block, dynamic shared memory and
/// the launch's ordinal among launches of its kernel in its process are the parameters.
#include <cstdint>
#include <string>
#include <vector>

namespace bb::attach {

struct attach_request {
  std::vector<std::string> command; ///< the program and its arguments
  std::string name;                 ///< the run's experiment name; "" takes default_name(command)
  std::string metric_set;           ///< the named set the metrics came from; "" when listed
  std::vector<std::string> metrics; ///< CUPTI names
  std::string kernel_regex;
  std::vector<std::string> nvtx_include;
  std::uint64_t launch_skip = 0, launch_count = 0; ///< count 0: every launch that passes
  bool application_only = false;                   ///< --target-processes application-only
  bool flush_l2 = true;                            ///< --cache-control all (none: false)
  double time_limit_s = 0;                         ///< 0: none
  std::string db_path, command_line;
  int verbosity = 0;
};

/// Runs the attach; returns the exit code (README "Exit codes", docs/attach.md): bankbench's own
/// failure first (3 a profiler problem, 4 the database), then the program's own non-zero exit
/// (128 + signal where a signal ended it), then 1 when no launch was profiled, else 0.
int attach(const attach_request& request);

/// The name a run of `command` is stored under: the script for an interpreter (`python3 -m mod` ->
/// "mod", `python3 train.py` -> "train.py"), else the program's file name.
std::string default_name(const std::vector<std::string>& command);

/// The library to inject: $BANKBENCH_INJECT_LIBRARY, else libbankbench-inject.so beside the
/// bankbench executable. Throws environment_error when it is not there.
std::string inject_library();

/// The program's shape of a launch as stored: {"block": "32x8x1", "grid": "64x1x1", "launch": 0,
/// "smem": 0} plus "cluster" for a launch with a thread-block cluster, "device" when not 0 and
/// "process" for a process other than the program's first.
std::string params_of(const std::vector<unsigned>& grid, const std::vector<unsigned>& block, std::uint64_t smem,
                      std::uint64_t ordinal, int device, const std::string& process,
                      const std::vector<unsigned>& cluster = {});

} // namespace bb::attach
