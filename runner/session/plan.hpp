#pragma once
/// A run as the engine executes it, resolved once from `bankbench run`'s options (cli/cmd_run.cpp):
/// the backend, which passes run, how the cache and device memory are handled, and the devices.
#include <optional>
#include <string>
#include <vector>

#include "runner/common/backend.hpp"
#include "runner/config/share.hpp"
#include "runner/launch/device_memory.hpp"
#include "runner/launch/executor.hpp"

namespace bb::session {

/// Which passes run for each configuration on the GPU (launch/executor.hpp).
using passes = launch::passes;

/// What `--backend model` predicts built-in variants from (`run --model-source`): their access plans,
/// or their family's own kernel code through its code twin (code_twins.hpp).
enum class model_source { plan, code };

struct run_plan {
  std::string db; ///< the results database
  bb::backend backend = bb::backend::cupti;
  session::passes passes;
  launch::cache_control cache_control = launch::cache_control::all;
  launch::allocator allocator = launch::allocator::pool;
  /// The GPUs, as the user numbers them (ordinals of the CUDA_VISIBLE_DEVICES the run started
  /// under): one worker each. One device is a plain run on it; the model counts as one device.
  std::vector<int> devices{0};
  int device = 0; ///< the one device of a session (a worker's; devices[0] for a plain run)
  /// CUDA_VISIBLE_DEVICES as the run started (unset: nullopt), read once at the command line. A
  /// worker that narrowed it to its device (launch::make_only_visible) holds that entry instead.
  std::optional<std::string> visible_devices;
  /// CUDA_VISIBLE_DEVICES was narrowed to `device` in this process: CUDA numbers it 0 here.
  bool device_alone = false;
  config::share_unit spread = config::share_unit::configuration; ///< how the devices share the work
  bool isolate = true;              ///< configurations in supervised worker processes (supervisor.hpp)
  int samples = 0;                  ///< 0: as the experiment file says
  int placements = 0;               ///< 0: as the experiment file says
  int warmup = -1;                  ///< -1: as the experiment file says
  double min_sample_us = 200;       ///< launch::exec_options::min_sample_ns, in us
  double time_limit_s = 0;          ///< seconds one configuration may take; 0: as the experiment file says
  std::vector<config::share> share; ///< this session's share of the configurations (--shard); empty: all
  std::string command_line;         ///< argv joined, stored with each run
  unsigned compile_jobs = 0;        ///< threads compiling source variants before the GPU phase, and predicting
                                    ///< with --backend model; 0: default
  /// `run --lines`: shared-memory counters per SASS instruction and source line for the
  /// configurations `lines_for` selects (every one where it is empty), each collected in a process
  /// of its own once the run's configurations are stored (lines_pass.hpp).
  bool lines = false;
  std::vector<std::string> lines_for;
  /// An experiment file asks for lines (`lines:`), collected as --lines would, on a GPU.
  bool lines_in_files = false;
  unsigned lines_jobs = 4; ///< collecting processes at a time on each GPU
  /// --backend model: thread-instructions the PTX interpreter may run for one source configuration
  /// (source/emulate.hpp); 0: source::k_default_model_budget.
  std::uint64_t model_budget = 0;
  session::model_source model_source = session::model_source::plan;
  std::string code_twins; ///< --code-twins: the twins' folder; empty: default_code_twins_dir()

  [[nodiscard]] bool model() const { return backend == bb::backend::model; }
  /// The device's CUDA ordinal in this process.
  [[nodiscard]] int cuda_ordinal() const { return device_alone ? 0 : device; }
  /// Whether counters are stored: the model's predictions, or a GPU run's counter pass.
  [[nodiscard]] bool counts() const { return model() || passes.counters; }
  /// Whether the configurations run in worker processes (supervisor.hpp): on a GPU unless
  /// --no-isolation, and always over several devices (one worker each).
  /// --lines needs them too: this process must not initialise CUDA before it forks the collectors.
  [[nodiscard]] bool in_workers() const {
    return devices.size() > 1 || (!model() && (isolate || lines || lines_in_files));
  }
};

} // namespace bb::session
