// bankbench validate FILE|DIR...: check experiment files; needs no GPU, and writes nothing but the compile cache
// (source variants are compiled, as `bankbench compile` does).
#include <cstdio>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "runner/cli/commands.hpp"
#include "runner/config/experiment_files.hpp"
#include "runner/common/error.hpp"
#include "runner/common/path_text.hpp"
#include "runner/config/param_checks.hpp"
#include "runner/registry/registry.hpp"
#include "runner/source/sweep_kernels.hpp"

namespace bb::cli {

namespace {
struct validate_options {
  std::vector<std::string> inputs{"experiments"};
  std::string arch = "sm_90";
  bool no_compile = false;
  unsigned jobs = 0; ///< threads compiling; 0: source::default_jobs()
};

int run_validate(const validate_options& o) {
  const auto files = config::experiment_files(o.inputs);
  const auto experiments = config::load_all(files);
  // The kernels' own parameter checks, on the host: what the GPU would refuse is refused here.
  std::vector<diagnostic> refused;
  for (const auto& e : experiments) try {
      config::check_parameters(e, registry::instance());
    } catch (const config_error& err) {
      refused.insert(refused.end(), err.diagnostics().begin(), err.diagnostics().end());
    }
  if (!refused.empty()) throw config_error(std::move(refused));
  // Source variants are compiled here, with no GPU, so a broken kernel fails before a GPU is booked:
  // each distinct kernel once, in parallel, as `bankbench compile` does.
  std::vector<std::string> compiled(experiments.size());
  if (!o.no_compile) {
    source::sweep_kernels kernels;
    for (std::size_t i = 0; i < experiments.size(); ++i) {
      if (!experiments[i].skip_reason.empty()) { // a required library (CUTLASS) is not found: a note, not an error
        compiled[i] = ", kernels skipped: " + experiments[i].skip_reason;
        continue;
      }
      kernels.add(experiments[i], i, {o.arch});
    }
    source::parallel_options options;
    options.jobs = o.jobs;
    options.cache_dir = source::default_cache_dir();
    options.progress = true;
    kernels.compile(options);
    if (auto problems = kernels.diagnostics(experiments); !problems.empty()) throw config_error(std::move(problems));
    // Each variant's args against its kernel's parameters, read from the PTX: what a GPU run would refuse.
    if (auto problems = kernels.argument_diagnostics(experiments, options.cache_dir); !problems.empty())
      throw config_error(std::move(problems));
    const auto counts = kernels.per_experiment(experiments.size());
    for (std::size_t i = 0; i < experiments.size(); ++i) {
      if (experiments[i].sources.empty() || !experiments[i].skip_reason.empty()) continue;
      const auto& r = counts[i];
      compiled[i] = fmt::format(", {} kernel(s) compiled for {} ({} from the cache in {:.2f} ms, {} compiled in "
                                "{:.0f} ms)",
                                r.kernels, o.arch, r.cache_hits, r.cache_hit_ms, r.compiled, r.compile_ms);
    }
  }
  for (std::size_t i = 0; i < experiments.size(); ++i) {
    const auto& e = experiments[i];
    std::printf("%s: ok (%s, %zu configurations, %zu expectations%s)\n", shown_path(e.path).c_str(), e.name.c_str(),
                config::expand(e).size(), e.expectations.size(), compiled[i].c_str());
  }
  return 0;
}
} // namespace

run_fn setup_validate(CLI::App& sub, const global_options&) {
  auto o = std::make_shared<validate_options>();
  sub.add_option("inputs", o->inputs, "experiment files or folders")->capture_default_str();
  add_arch_option(sub, o->arch, "architecture source variants are compiled for (sm_XY or sm_XYa)");
  sub.get_option("--arch")->capture_default_str();
  sub.add_flag("--no-compile", o->no_compile, "check the files only; do not compile source variants");
  add_jobs_option(sub, o->jobs, "source variants");
  return [o] { return run_validate(*o); };
}

} // namespace bb::cli
