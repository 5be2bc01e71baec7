// bankbench regress --baseline X [--candidate Y]: exit 1 when the candidate regressed.
#include <iostream>
#include <set>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "common/error.hpp"
#include "query/metric_info.hpp"
#include "query/noise.hpp"
#include "query/regress.hpp"
#include "query/regress_output.hpp"
#include "query/selector.hpp"
#include "store/database.hpp"

namespace bb::cli {

namespace {
struct regress_cli {
  std::string baseline, candidate = "latest";
  std::vector<std::string> metrics;
  query::regress_options options;
  std::string format = "table";
};

int run_regress(const regress_cli& o, const global_options& g) {
  const auto db = store::database::open_for_query(g.db);
  query::regress_options options = o.options;
  options.metrics = query::split_metrics(o.metrics);
  if (options.metrics.empty()) options.metrics = query::default_regress_metrics();
  const store::result_query q{options.metrics, true};
  const query::side candidate = query::select_side(db, o.candidate, q);
  const query::side baseline = query::select_side(db, o.baseline, q, &candidate);
  if (candidate.rows.empty()) throw usage_error(candidate.label + " has no configurations");
  std::set<std::pair<std::string, std::string>> scope;
  std::set<std::int64_t> exclude;
  for (const auto& r : candidate.rows) scope.insert({r.experiment, r.arch});
  for (const auto& r : candidate.runs) exclude.insert(r.id);
  const auto noise = query::learn_noise(db, scope, exclude, options.metrics);
  const auto result = query::regress(baseline, candidate, noise, options);
  if (result.compared + result.compared_across == 0)
    throw usage_error(fmt::format("{} and {} have no configuration in common (experiment, variant and parameters); "
                                  "nothing to compare",
                                  baseline.label, candidate.label));
  query::write_regress(result, std::cout, o.format);
  return result.gated() > 0 ? 1 : 0;
}
} // namespace

run_fn setup_regress(CLI::App& sub, const global_options& global) {
  auto o = std::make_shared<regress_cli>();
  sub.add_option("-b,--baseline", o->baseline,
                 "what to compare against: run id, latest (the run before the candidate), baseline name, commit")
      ->required();
  sub.add_option("-c,--candidate", o->candidate, "what is judged: run id, latest, baseline name, commit")
      ->capture_default_str();
  sub.add_option("-m,--metric", o->metrics,
                 "counter metrics to judge, repeated or comma-separated (default: load and store wavefronts and "
                 "conflicts per request)");
  sub.add_option("--min-change", o->options.min_change, "the smallest relative change that counts, whatever the noise")
      ->check(CLI::Range(0.0, 10.0))
      ->capture_default_str();
  sub.add_option("--time-effect", o->options.min_time_effect,
                 "the smallest relative change of a median time that counts")
      ->check(CLI::Range(0.0, 10.0))
      ->capture_default_str();
  sub.add_option("--alpha", o->options.alpha, "significance of the Mann-Whitney U test on the timing samples")
      ->check(CLI::Range(1e-9, 1.0))
      ->capture_default_str();
  sub.add_flag("--gate-time", o->options.gate_time, "a significantly slower time is a regression too (exit 1)");
  sub.add_option("-f,--format", o->format, "table, markdown or json")
      ->check(CLI::IsMember({"table", "markdown", "json"}))
      ->capture_default_str();
  sub.footer("Exit codes: 0 no regression; 1 a regression; 2 usage or data error (unknown run or baseline, "
             "nothing in common); 4 database error.");
  return [o, &global] { return run_regress(*o, global); };
}

} // namespace bb::cli
