// bankbench validate FILE|DIR...: check experiment files; needs no GPU and writes nothing.
#include <cstdio>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "cli/experiment_files.hpp"
#include "common/error.hpp"
#include "config/param_checks.hpp"
#include "registry/registry.hpp"

namespace bb::cli {

namespace {
struct validate_options {
  std::vector<std::string> inputs{"experiments"};
};

int run_validate(const validate_options& o) {
  const auto files = experiment_files(o.inputs);
  const auto experiments = load_all(files);
  // The kernels' own parameter checks, on the host: what the GPU would refuse is refused here.
  std::vector<diagnostic> refused;
  for (const auto& e : experiments) try {
      config::check_parameters(e, registry::instance());
    } catch (const config_error& err) {
      refused.insert(refused.end(), err.diagnostics().begin(), err.diagnostics().end());
    }
  if (!refused.empty()) throw config_error(std::move(refused));
  for (const auto& e : experiments)
    std::printf("%s: ok (%s, %zu configurations, %zu expectations)\n", e.path.c_str(), e.name.c_str(),
                config::expand(e).size(), e.expectations.size());
  return 0;
}
} // namespace

run_fn setup_validate(CLI::App& sub, const global_options&) {
  auto o = std::make_shared<validate_options>();
  sub.add_option("inputs", o->inputs, "experiment files or folders")->capture_default_str();
  return [o] { return run_validate(*o); };
}

} // namespace bb::cli
