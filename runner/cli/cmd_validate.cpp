// bankbench validate FILE|DIR...: check experiment files; needs no GPU and writes nothing.
#include <cstdio>
#include <regex>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "runner/cli/commands.hpp"
#include "runner/config/experiment_files.hpp"
#include "runner/common/error.hpp"
#include "runner/config/param_checks.hpp"
#include "runner/registry/registry.hpp"
#include "runner/source/variants.hpp"

namespace bb::cli {

namespace {
struct validate_options {
  std::vector<std::string> inputs{"experiments"};
  std::string arch = "sm_90";
  bool no_compile = false;
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
  // Source variants are compiled here, with no GPU, so a broken kernel fails before a GPU is booked.
  std::vector<diagnostic> compile_problems;
  std::vector<std::string> compiled(experiments.size());
  for (std::size_t i = 0; i < experiments.size() && !o.no_compile; ++i) {
    if (experiments[i].sources.empty()) continue;
    if (!experiments[i].skip_reason.empty()) { // a required library (CUTLASS) is not found: a note, not an error
      compiled[i] = ", kernels skipped: " + experiments[i].skip_reason;
      continue;
    }
    try {
      const auto r = source::compile_all(experiments[i], o.arch);
      compiled[i] = fmt::format(", {} kernel(s) compiled for {} ({} from the cache in {:.2f} ms, {} compiled in "
                                "{:.0f} ms)",
                                r.kernels, o.arch, r.cache_hits, r.cache_hit_ms, r.kernels - r.cache_hits,
                                r.compile_ms);
    } catch (const config_error& e) {
      compile_problems.insert(compile_problems.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }
  if (!compile_problems.empty()) throw config_error(compile_problems);
  for (std::size_t i = 0; i < experiments.size(); ++i) {
    const auto& e = experiments[i];
    std::printf("%s: ok (%s, %zu configurations, %zu expectations%s)\n", e.path.c_str(), e.name.c_str(),
                config::expand(e).size(), e.expectations.size(), compiled[i].c_str());
  }
  return 0;
}
} // namespace

run_fn setup_validate(CLI::App& sub, const global_options&) {
  auto o = std::make_shared<validate_options>();
  sub.add_option("inputs", o->inputs, "experiment files or folders")->capture_default_str();
  sub.add_option("--arch", o->arch, "architecture source variants are compiled for (sm_XY or sm_XYa)")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& a) {
            return std::regex_match(a, std::regex("sm_[0-9]{2,3}a?")) ? "" : "expected sm_XY, such as sm_90";
          },
          "sm_XY", "arch"));
  sub.add_flag("--no-compile", o->no_compile, "check the files only; do not compile source variants");
  return [o] { return run_validate(*o); };
}

} // namespace bb::cli
