#pragma once
/// A run as the engine executes it, resolved once from `bankbench run`'s options (cli/cmd_run.cpp):
/// the backend, which passes run, how the cache and device memory are handled, and the devices.
#include <string>
#include <vector>

#include "runner/common/backend.hpp"
#include "runner/config/share.hpp"
#include "runner/launch/device_memory.hpp"
#include "runner/launch/executor.hpp"

namespace bb::session {

/// Which passes run for each configuration on the GPU. The model predicts the counters and runs
/// none of them.
struct passes {
  bool counters = true;     ///< the counter pass (CUPTI); false under --no-counters and --launch-once
  bool timing = true;       ///< the timing pass; false under --no-timing and --launch-once
  bool launch_once = false; ///< one verified launch in the NVTX range "bankbench-measure", nothing more

  /// --no-counters, --no-timing and --launch-once as flags.
  static passes from_flags(bool no_counters, bool no_timing, bool launch_once) {
    return {!no_counters && !launch_once, !no_timing && !launch_once, launch_once};
  }
};

struct run_plan {
  std::string db; ///< the results database
  bb::backend backend = bb::backend::cupti;
  session::passes passes;
  launch::cache_control cache_control = launch::cache_control::all;
  launch::allocator allocator = launch::allocator::pool;
  int device = 0; ///< the one device of a session
  /// CUDA_VISIBLE_DEVICES was narrowed to `device` in this process (launch::make_only_visible):
  /// CUDA numbers it 0 here.
  bool device_alone = false;
  std::vector<int> devices; ///< two or more: one session per device (multi_device.hpp)
  config::share_unit spread = config::share_unit::configuration; ///< how the devices share the work
  bool isolate = true;        ///< configurations in a supervised worker process (supervisor.hpp)
  int samples = 0;            ///< 0: as the experiment file says
  int placements = 0;         ///< 0: as the experiment file says
  int warmup = -1;            ///< -1: as the experiment file says
  double min_sample_us = 200; ///< launch::exec_options::min_sample_ns, in us
  double time_limit_s = 0;    ///< seconds one configuration may take; 0: as the experiment file says
  std::string shard;          ///< this session's share of the configurations, stored in runs.shard
  std::string command_line;   ///< argv joined, stored with each run

  [[nodiscard]] bool model() const { return backend == bb::backend::model; }
  /// The device's CUDA ordinal in this process.
  [[nodiscard]] int cuda_ordinal() const { return device_alone ? 0 : device; }
  /// Whether counters are stored: the model's predictions, or a GPU run's counter pass.
  [[nodiscard]] bool counts() const { return model() || passes.counters; }
  /// Whether the configurations run in a worker process: on a GPU, unless --no-isolation.
  [[nodiscard]] bool supervised() const { return !model() && isolate; }
};

} // namespace bb::session
