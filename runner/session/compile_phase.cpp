#include "runner/session/compile_phase.hpp"

#include <algorithm>
#include <chrono>
#include <string>
#include <variant>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "runner/common/path_text.hpp"
#include "runner/session/code_twins.hpp"
#include "runner/session/supervisor.hpp"
#include "runner/source/compile.hpp"
#include "runner/source/emulate.hpp"
#include "runner/source/known_kernels.hpp"
#include "runner/source/sweep_kernels.hpp"

namespace bb::session {

namespace {

/// " (12 nvcc runs)" where kernels of one file were compiled together; else "".
std::string runs_text(const source::sweep_kernels& k) {
  return k.nvcc_runs() > 0 ? fmt::format(" ({} nvcc run{})", k.nvcc_runs(), k.nvcc_runs() == 1 ? "" : "s") : "";
}

bool any_source_left(const std::vector<config::experiment>& experiments, const resume_point& start) {
  for (std::size_t i = 0; i < experiments.size(); ++i)
    if (!experiments[i].sources.empty() && start.done[i].size() < config::expand(experiments[i]).size()) return true;
  return false;
}

} // namespace

bool compile_phase_needed(const std::vector<config::experiment>& experiments, const run_plan& plan,
                          const resume_point& start) {
  return !plan.model() && any_source_left(experiments, start) && !source::default_cache_dir().empty();
}

compile_summary compile_before_gpu(const std::vector<config::experiment>& experiments, const run_plan& plan,
                                   const resume_point& start) {
  if (!compile_phase_needed(experiments, plan, start)) return {};
  // The architecture comes from CUDA in a short-lived child, not from NVML in this process: NVML
  // numbers GPUs in PCI order and knows nothing of CUDA_VISIBLE_DEVICES (indices, UUIDs, MIG) or
  // CUDA_DEVICE_ORDER, so only CUDA maps the run's ordinals for certain, and this process must not
  // initialise CUDA before it forks the workers. Compiling here rather than in each worker compiles
  // a kernel once for every GPU of --devices, and the outcomes reach every worker, a fresh one
  // after a crash too, through the fork.
  std::vector<std::string> archs;
  const auto t0 = std::chrono::steady_clock::now();
  const auto probed = probe_archs(plan.devices);
  spdlog::debug("GPU architectures read in {:.0f} ms",
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  for (const auto& a : probed)
    if (!a.empty() && std::find(archs.begin(), archs.end(), a) == archs.end()) archs.push_back(a);
  if (archs.empty()) {
    spdlog::debug("no GPU answered: nothing compiled before the run");
    return {};
  }
  return compile_for(experiments, plan, start, archs);
}

namespace {

/// Compiles `kernels` on plan.compile_jobs threads, with progress, into `cache_dir`; the wall time
/// and each outcome counted into `summary`.
void compile_counted(source::sweep_kernels& kernels, const run_plan& plan, const std::string& cache_dir,
                     compile_summary& summary) {
  source::parallel_options options;
  options.jobs = plan.compile_jobs;
  options.cache_dir = cache_dir;
  options.progress = true;
  options.stop = &g_interrupted;
  summary.wall_s = kernels.compile(options);
  summary.kernels = kernels.kernels().size();
  for (const auto& k : kernels.kernels()) {
    if (!k.outcome.attempted) continue;
    (k.outcome.ok ? (k.outcome.cache_hit ? summary.cache_hits : summary.compiled) : summary.failed) += 1;
  }
}

/// "24 kernels for sm_90 in 3.1 s on 2 threads: 20 compiled, 4 from the cache" (`what` names
/// them), unless every one came from the cache at once.
void say_compiled(const source::sweep_kernels& kernels, const run_plan& plan, const compile_summary& summary,
                  const std::string& what, const std::string& archs) {
  if (summary.compiled == 0 && summary.failed == 0 && summary.wall_s < 1.0) return;
  const std::size_t n = summary.kernels;
  const std::size_t threads = std::min<std::size_t>(plan.compile_jobs > 0 ? plan.compile_jobs : source::default_jobs(),
                                                    n);
  spdlog::info("{} {}{} for {} in {:.1f} s on {} thread{}{}: {} compiled, {} from the cache{}", n, what,
               n == 1 ? "" : "s", archs, summary.wall_s, threads, threads == 1 ? "" : "s", runs_text(kernels),
               summary.compiled, summary.cache_hits,
               summary.failed > 0 ? fmt::format(", {} failed", summary.failed) : "");
}

compile_summary compile_kernels(const std::vector<config::experiment>& experiments, const run_plan& plan,
                                const resume_point& start, const std::vector<std::string>& archs) {
  compile_summary summary;
  const std::string cache_dir = source::default_cache_dir();
  if (cache_dir.empty()) {
    spdlog::debug("no compile phase: no compile cache (BB_CACHE_DIR empty, or no HOME), so each configuration "
                  "compiles its kernel");
    return summary;
  }
  source::sweep_kernels kernels;
  kernels.for_model_only(plan.model());
  for (std::size_t i = 0; i < experiments.size(); ++i)
    kernels.add(experiments[i], i, archs,
                [&](std::size_t seq) { return start.done.at(i).count(static_cast<int>(seq)) == 0; });
  if (kernels.kernels().empty()) return summary;

  compile_counted(kernels, plan, cache_dir, summary);
  spdlog::debug("{} kernel(s) compiled or read from the cache in {:.0f} ms", summary.kernels, summary.wall_s * 1000);
  for (const auto& k : kernels.kernels()) {
    source::remember(k.request, k.outcome);
    summary.outcomes.emplace_back(source::request_id(k.request), k.outcome);
  }
  for (const auto& g : kernels.failures()) {
    const std::string others = g.others_text();
    spdlog::error("{}\n{}: variant '{}' ({}) fails{}; the other configurations run", g.message,
                  shown_path(experiments.at(g.first().experiment).path), g.first().variant, g.first().params,
                  others.empty() ? "" : " (" + others + ")");
  }
  say_compiled(kernels, plan, summary, "kernel", fmt::format("{}", fmt::join(archs, ", ")));
  return summary;
}

} // namespace

compile_summary compile_for(const std::vector<config::experiment>& experiments, const run_plan& plan,
                            const resume_point& start, const std::vector<std::string>& archs) {
  if (plan.model()) {
    spdlog::debug("no compile phase before a GPU: --backend model compiles for the model (compile_for_model)");
    return {};
  }
  return compile_kernels(experiments, plan, start, archs);
}

namespace {

/// --model-source code: the kernels of the code twins that the built-in configurations left to
/// run are predicted from, compiled together as the source variants' are. A twin that does not
/// compile is not an error here: its configurations fall back to their plans, saying why.
void compile_twins(const std::vector<config::experiment>& experiments, const run_plan& plan,
                   const resume_point& start) {
  const std::string cache_dir = source::default_cache_dir();
  if (cache_dir.empty()) return;
  code_twins twins(plan.code_twins.empty() ? default_code_twins_dir() : plan.code_twins);
  const std::vector<std::string> archs{source::emulation_options{}.arch};
  source::sweep_kernels kernels;
  kernels.for_model_only(true);
  for (std::size_t i = 0; i < experiments.size(); ++i) {
    const config::experiment& exp = experiments[i];
    for (const auto& cfg : config::expand(exp)) {
      if (start.done.at(i).count(static_cast<int>(cfg.index)) != 0 || exp.find_source(cfg.variant) != nullptr) continue;
      const auto found = twins.find(exp, cfg);
      const auto* t = std::get_if<twin_configuration>(&found);
      if (t == nullptr) continue;
      kernels.add_configuration(*t->twin, *t->variant, t->params,
                                {i, cfg.index, cfg.variant, t->variant->line, config::describe_params(cfg.params)},
                                archs);
    }
  }
  if (kernels.kernels().empty()) return;
  compile_summary summary;
  compile_counted(kernels, plan, cache_dir, summary);
  for (const auto& g : kernels.failures())
    spdlog::debug("code twin kernel does not compile (its configurations fall back to their plans): {}", g.message);
  say_compiled(kernels, plan, summary, "code twin kernel", archs.front());
}

} // namespace

compile_summary compile_for_model(const std::vector<config::experiment>& experiments, const run_plan& plan,
                                  const resume_point& start) {
  if (!plan.model()) return {};
  compile_summary summary;
  if (any_source_left(experiments, start))
    summary = compile_kernels(experiments, plan, start, {source::emulation_options{}.arch});
  if (plan.model_source == model_source::code && !g_interrupted.load()) compile_twins(experiments, plan, start);
  return summary;
}

} // namespace bb::session
