#pragma once
/// The compile phase of `bankbench run`: before any configuration runs, the distinct kernels that
/// the remaining source configurations need are compiled into the cache in parallel, so that the
/// workers find cache hits, and a kernel that does not compile costs its own configurations only,
/// with its log printed once.
#include <cstddef>
#include <string>
#include <vector>

#include "runner/config/experiment.hpp"
#include "runner/session/plan.hpp"
#include "runner/session/run_session.hpp"
#include "runner/source/parallel_compile.hpp"

namespace bb::session {

/// What the compile phase did.
struct compile_summary {
  std::size_t kernels = 0; ///< distinct kernels (a kernel counts once per architecture)
  std::size_t compiled = 0, cache_hits = 0, failed = 0;
  double wall_s = 0;
  /// Each distinct kernel's request_id and outcome, for a process that did not compile them.
  std::vector<std::pair<std::string, source::compile_outcome>> outcomes;
};

/// Compiles, on plan.compile_jobs threads, every distinct kernel the configurations `start` leaves
/// to run need, for the architecture of each of plan.devices, into the compile cache, and remembers
/// each outcome in this process for the workers it forks next (source/known_kernels.hpp). Does
/// nothing for --backend model, without source variants, without a cache folder, or where no GPU
/// answers (the workers then compile per configuration, or report the missing GPU, as before).
/// Stops taking new kernels once g_interrupted is set. Throws environment_error where NVRTC is
/// missing.
compile_summary compile_before_gpu(const std::vector<config::experiment>& experiments, const run_plan& plan,
                                   const resume_point& start);

/// Whether compile_before_gpu() has anything to do: a GPU backend, source configurations left to
/// run and a cache folder.
bool compile_phase_needed(const std::vector<config::experiment>& experiments, const run_plan& plan,
                          const resume_point& start);

/// The same for the architectures given (the GPUs' in a run; the tests name them): no GPU is asked.
compile_summary compile_for(const std::vector<config::experiment>& experiments, const run_plan& plan,
                            const resume_point& start, const std::vector<std::string>& archs);

/// --backend model: the source configurations' kernels compiled in parallel, for the architecture
/// the model emulates, in this process (no GPU, so NVRTC may initialise CUDA here), before any is
/// predicted; each prediction then finds its kernel's PTX in the cache. With --model-source code,
/// the code twins' kernels of the built-in configurations too (a twin that does not compile is
/// logged at debug level: its configurations fall back to their plans, saying why). The summary
/// is the source variants'. Nothing for a plan-only run, without a cache folder, or once every
/// kernel is there.
compile_summary compile_for_model(const std::vector<config::experiment>& experiments, const run_plan& plan,
                                  const resume_point& start);

} // namespace bb::session
