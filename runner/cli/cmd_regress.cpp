// bankbench regress --baseline X [--candidate Y]: exit 1 when the candidate regressed.
#include <algorithm>
#include <iostream>
#include <set>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "runner/cli/commands.hpp"
#include "runner/common/error.hpp"
#include "runner/common/metrics.hpp"
#include "runner/common/suggest.hpp"
#include "runner/query/line_gate.hpp"
#include "runner/query/metric_info.hpp"
#include "runner/query/noise.hpp"
#include "runner/query/regress.hpp"
#include "runner/query/regress_output.hpp"
#include "runner/query/selector.hpp"
#include "runner/store/database.hpp"

namespace bb::cli {

namespace {
struct regress_cli {
  std::string baseline, candidate = "latest";
  std::vector<std::string> metrics;
  query::regress_options options;
  std::string format = "table";
  bool lines = false;
};

/// Every metric name that some row of `s` holds.
std::set<std::string> collected(const query::side& s) {
  std::set<std::string> names;
  for (const auto& r : s.rows)
    for (const auto& [name, stats] : r.metrics) names.insert(name);
  return names;
}

/// A gate must judge something: a metric neither side collected is an error, never a pass.
void check_metrics(const std::vector<std::string>& metrics, const query::side& baseline, const query::side& candidate) {
  const auto in_candidate = collected(candidate), in_baseline = collected(baseline);
  for (const auto& m : metrics) {
    for (const auto* side : {&candidate, &baseline}) {
      const auto& names = side == &candidate ? in_candidate : in_baseline;
      if (names.count(m) > 0) continue;
      const std::vector<std::string> all(names.begin(), names.end());
      std::string hint = did_you_mean(m, all);
      if (hint.empty())
        hint = metrics::is_derived(m) || m.find("__") != std::string::npos
                   ? "it was not collected there (see the experiment's `metrics:`)"
                   : "no such metric; `bankbench list metrics` lists the derived metrics";
      throw usage_error(fmt::format("-m {}: {} holds no values of this metric; {}; the gate judges nothing it "
                                    "cannot see",
                                    m, side->label, hint));
    }
  }
}

// --lines: the per-line gate alone (line_gate.hpp).
int run_line_regress(const regress_cli& o, const store::database& db) {
  if (!o.metrics.empty()) throw usage_error("-m judges counters; --lines judges source lines: give one or the other");
  const query::side candidate = query::lines_side(db, o.candidate);
  const query::side baseline = query::lines_side(db, o.baseline, &candidate);
  const auto result = query::regress_lines(query::diff_lines(db, baseline, candidate), o.options);
  if (result.diff.configurations.empty())
    throw usage_error(fmt::format("{} and {} have no configuration in common with per-line data on both sides "
                                  "(experiment, variant and parameters); nothing to compare",
                                  baseline.label, candidate.label));
  query::write_line_regress(result, std::cout, o.format);
  return result.gated() > 0 ? 1 : 0;
}

// Why `candidate` holds no counters to judge. A model run of variants the bank model cannot predict
// (no access plan, or source kernels whose code it cannot follow) stores them not_modelled:
// --no-counters is not the cause.
std::string no_counters_message(const query::side& candidate) {
  const bool none_modelled = std::all_of(candidate.rows.begin(), candidate.rows.end(), [](const store::result_row& r) {
    return r.status == config_status::not_modelled;
  });
  if (none_modelled)
    return fmt::format("{} is a bank-model run of variants the model does not predict (all {} configurations are "
                       "not_modelled: variants without an access plan, and source kernels whose code the model cannot "
                       "follow, have no prediction; `bankbench show` gives each reason); "
                       "measure them on a GPU with `bankbench run FILE` (without --backend model) and regress those "
                       "runs; nothing to judge",
                       candidate.label, candidate.rows.size());
  return fmt::format("{} holds no shared-memory counters (run with counters, not --no-counters); nothing to judge",
                     candidate.label);
}

int run_regress(const regress_cli& o, const global_options& g) {
  const auto db = store::database::open_for_query(g.db);
  if (o.lines) return run_line_regress(o, db);
  query::regress_options options = o.options;
  options.metrics = query::split_metrics(o.metrics);
  // Read every metric: the default list is what the candidate holds, and -m names are checked
  // against what each side collected.
  const store::result_query q{{}, true};
  const query::side candidate = query::select_side(db, o.candidate, q);
  const query::side baseline = query::select_side(db, o.baseline, q, &candidate);
  if (candidate.rows.empty()) throw usage_error(candidate.label + " has no configurations; nothing to judge");
  if (baseline.rows.empty()) throw usage_error(baseline.label + " has no configurations; nothing to judge against");
  if (options.metrics.empty()) options.metrics = query::regress_metrics_of(candidate.rows);
  if (options.metrics.empty()) throw usage_error(no_counters_message(candidate));
  check_metrics(options.metrics, baseline, candidate);
  std::set<std::pair<std::string, std::string>> scope;
  std::set<std::int64_t> exclude;
  for (const auto& r : candidate.rows) scope.insert({r.experiment, r.arch});
  for (const auto& r : candidate.runs) exclude.insert(r.id);
  query::repeat_table repeats;
  const auto noise = query::learn_noise(db, scope, exclude, options.metrics, 50, &repeats);
  const auto result = query::regress(baseline, candidate, noise, options, repeats);
  if (result.compared + result.compared_across == 0)
    throw usage_error(fmt::format("{} and {} have no configuration in common (experiment, variant and parameters); "
                                  "nothing to compare",
                                  baseline.label, candidate.label));
  if (result.judged == 0)
    throw usage_error(fmt::format("{} and {} have {} configuration(s) in common, but none with the judged metrics "
                                  "measured on both sides ({}); nothing was judged",
                                  baseline.label, candidate.label, result.compared + result.compared_across,
                                  fmt::join(options.metrics, ", ")));
  query::write_regress(result, std::cout, o.format);
  return result.gated() > 0 ? 1 : 0;
}
} // namespace

run_fn setup_regress(CLI::App& sub, const global_options& global) {
  auto o = std::make_shared<regress_cli>();
  sub.add_option("-b,--baseline", o->baseline,
                 std::string("what to compare against: ") + k_spec_kinds + "; latest: the runs before the candidate's")
      ->required();
  sub.add_option("-c,--candidate", o->candidate, std::string("what is judged: ") + k_spec_kinds)->capture_default_str();
  refuse_empty(sub.add_option("-m,--metric", o->metrics,
                              "counter metrics to judge, repeated or comma-separated (default: every access kind's "
                              "wavefronts per request and requests that the candidate holds); a metric either side "
                              "lacks is an error"),
               "a metric name, e.g. load_wavefronts_per_request");
  add_number_option(sub, "--min-effect", o->options.min_effect,
                    "the smallest change that counts, in wavefronts (or conflicts) per request; a count's is this "
                    "many per request of its kind",
                    number_rule::real(0, 1000))
      ->capture_default_str();
  add_number_option(sub, "--min-change", o->options.min_change,
                    "the smallest change that counts, relative to the baseline (the larger of the two applies)",
                    number_rule::real(0, 10))
      ->capture_default_str();
  add_number_option(sub, "--noise-factor", o->options.noise_factor,
                    "noise learned from at least 3 runs of the same code tightens the relative minimum effect to "
                    "this many times the noise (never below the absolute one)",
                    number_rule::real(1, 1000))
      ->capture_default_str();
  add_number_option(sub, "--time-effect", o->options.min_time_effect,
                    "the smallest relative change of a median time that counts", number_rule::real(0, 10))
      ->capture_default_str();
  add_number_option(sub, "--alpha", o->options.alpha, "significance of the Mann-Whitney U test on the timing samples",
                    number_rule::real(1e-9, 1))
      ->capture_default_str();
  sub.add_flag("--lines", o->lines,
               "judge source lines instead of counters: a line whose excess wavefronts per execution grew "
               "beyond the minimum effect is a regression (needs `run --lines` on both sides)");
  sub.add_flag("--gate-time", o->options.gate_time, "a significantly slower time is a regression too (exit 1)");
  add_format_option(sub, o->format, "csv holds the findings alone, one row per configuration and metric");
  sub.footer("Exit codes: 0 no regression; 1 a regression; 2 usage or data error (unknown run or baseline, "
             "nothing in common, a metric not collected, nothing judged); 4 database error.");
  return [o, &global] { return run_regress(*o, global); };
}

} // namespace bb::cli
