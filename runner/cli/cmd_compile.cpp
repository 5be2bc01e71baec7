// bankbench compile [FILE|DIR...]: every distinct kernel of the source variants compiled into the
// cache, in parallel and without a GPU, so that CI can restore a warm cache before GPU time is spent.
#include <cstdio>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "runner/cli/commands.hpp"
#include "runner/common/error.hpp"
#include "runner/common/path_text.hpp"
#include "runner/config/experiment_files.hpp"
#include "runner/session/run_session.hpp"
#include "runner/session/supervisor.hpp"
#include "runner/source/sweep_kernels.hpp"

namespace bb::cli {

namespace {

struct compile_options {
  std::vector<std::string> inputs{"experiments"};
  std::string arch; ///< empty: GPU 0's, else sm_90
  unsigned jobs = 0;
};

std::string plural(std::size_t n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

int run_compile(const compile_options& o) {
  auto experiments = config::load_all(config::experiment_files(o.inputs));
  // An experiment whose kernels need what this machine lacks (CuTe without CUTLASS) is skipped with
  // the reason, as `run` and `validate` skip it.
  const std::size_t skipped = session::skip_unavailable(experiments);
  const std::string cache_dir = source::default_cache_dir();
  if (cache_dir.empty())
    throw usage_error("there is no compile cache to fill: HOME is not set and BB_CACHE_DIR is empty; set "
                      "BB_CACHE_DIR to a folder");
  std::string arch = o.arch, whence = "--arch";
  if (arch.empty()) { // the GPU's, so that a run on it finds every kernel; a child process asks CUDA
    arch = session::probe_archs({0}).front();
    whence = arch.empty() ? "no GPU; --arch chooses" : "GPU 0";
    if (arch.empty()) arch = "sm_90";
  }
  source::sweep_kernels kernels;
  for (std::size_t i = 0; i < experiments.size(); ++i) kernels.add(experiments[i], i, {arch});
  if (kernels.kernels().empty() && kernels.refused().empty()) {
    fmt::print("no source variants in {}{}: nothing to compile\n", plural(experiments.size(), "experiment file"),
               skipped > 0 ? fmt::format(" ({} skipped)", skipped) : "");
    return 0;
  }
  source::parallel_options options;
  options.jobs = o.jobs > 0 ? o.jobs : source::default_jobs();
  options.cache_dir = cache_dir;
  options.progress = true;
  const double wall_s = kernels.compile(options);

  const auto counts = kernels.per_experiment(experiments.size());
  std::size_t compiled = 0, hits = 0, failed = 0;
  for (const auto& k : kernels.kernels()) (k.outcome.ok ? (k.outcome.cache_hit ? hits : compiled) : failed) += 1;
  for (std::size_t i = 0; i < experiments.size(); ++i) {
    if (experiments[i].sources.empty()) continue;
    const auto& c = counts[i];
    fmt::print("{}: {}: {} compiled in {:.2f} s, {} from the cache in {:.1f} ms, {} failed\n",
               shown_path(experiments[i].path), plural(c.kernels, "kernel"), c.compiled, c.compile_ms / 1e3,
               c.cache_hits, c.cache_hit_ms, c.failed);
  }
  const std::size_t threads = std::min<std::size_t>(options.jobs, kernels.kernels().size());
  fmt::print("{} for {} ({}) in {:.2f} s on {}: {} compiled, {} from the cache, {} failed; cache {}\n",
             plural(kernels.kernels().size(), "kernel"), arch, whence, wall_s, plural(threads, "thread"), compiled,
             hits, failed, cache_dir);
  if (auto problems = kernels.diagnostics(experiments); !problems.empty()) {
    std::fflush(stdout);
    throw config_error(std::move(problems));
  }
  return 0;
}

} // namespace

run_fn setup_compile(CLI::App& sub, const global_options&) {
  auto o = std::make_shared<compile_options>();
  sub.footer(
      "Every distinct kernel of the source variants (experiments with a source: block) goes into the compile "
      "cache ($BB_CACHE_DIR, else $XDG_CACHE_HOME/bankbench/nvrtc, else ~/.cache/bankbench/nvrtc), so that a "
      "later run on a GPU of that architecture finds it there. An experiment whose kernels need what this "
      "machine lacks (CuTe's without CUTLASS) is skipped with a warning, as `run` skips it.\nExit codes: 0 every kernel compiled (or came "
      "from the cache); 2 a kernel does not compile (its log once, at the user's file and line), an invalid "
      "experiment file, or no cache folder; 3 NVRTC is missing.");
  sub.add_option("inputs", o->inputs, "experiment files or folders")->capture_default_str();
  add_arch_option(sub, o->arch,
                  "architecture to compile for, sm_XY or sm_XYa (default: GPU 0's where one is visible, else sm_90)");
  add_jobs_option(sub, o->jobs, "kernels");
  return [o] { return run_compile(*o); };
}

} // namespace bb::cli
