// bankbench compare variants [RUN] | gpus [EXPERIMENT] | runs A B [C...]: results side by side.
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "runner/cli/commands.hpp"
#include "runner/common/error.hpp"
#include "runner/query/compare.hpp"
#include "runner/query/line_gate.hpp"
#include "runner/query/metric_info.hpp"
#include "runner/query/selector.hpp"
#include "runner/store/database.hpp"
#include "runner/store/results.hpp"

namespace bb::cli {

namespace {
struct compare_options {
  std::string mode;
  std::vector<std::string> args;
  std::vector<std::string> metrics;
  std::string reference;
  std::string format = "table";
  bool lines = false;
};

query::compare_table across_gpus(const store::database& db, const compare_options& o, const store::result_query& q) {
  if (o.args.size() > 1) throw usage_error("compare gpus takes one experiment name");
  const auto runs = store::run_infos(db);
  if (runs.empty()) throw usage_error(db.path() + " holds no runs yet; run `bankbench run` first");
  const std::string experiment = o.args.empty() ? runs.back().experiment_name : o.args.front();
  const auto latest = query::latest_per_gpu(runs, experiment);
  if (latest.empty())
    throw usage_error(
        fmt::format("no run of experiment '{}' in {}; `bankbench list runs` lists them", experiment, db.path()));
  std::vector<query::side> sides;
  for (const auto& r : latest)
    sides.push_back(query::side_of_runs(fmt::format("run {}", r.id), {r}, store::read_results(db, {r.id}, q)));
  auto table = query::compare_sides(sides, q.metrics);
  table.title = fmt::format("{} across GPUs (the newest run on each)", experiment);
  return table;
}

// runs A B --lines: per source line, A's excess beside B's.
int run_line_compare(const compare_options& o, const store::database& db) {
  if (o.mode != "runs" || o.args.size() != 2)
    throw usage_error("--lines compares two sides: `bankbench compare runs A B --lines`");
  if (!o.metrics.empty()) throw usage_error("-m names counters; --lines shows source lines: give one or the other");
  const query::side a = query::lines_side(db, o.args[0]);
  const query::side b = query::lines_side(db, o.args[1]);
  query::write_line_compare(query::diff_lines(db, a, b), std::cout, o.format);
  return 0;
}

int run_compare(const compare_options& o, const global_options& g) {
  const auto db = store::database::open_for_query(g.db);
  if (o.lines) return run_line_compare(o, db);
  auto metrics = query::split_metrics(o.metrics);
  query::check_metric_names(metrics, store::stored_metric_names(db), db.path());
  if (metrics.empty()) metrics = query::default_compare_metrics();
  const store::result_query q{metrics, false};
  query::compare_table table;
  if (o.mode == "variants") {
    if (o.args.size() > 1) throw usage_error("compare variants takes one run (default: latest)");
    query::write_compares(
        query::compare_variants_per_experiment(query::select_side(db, o.args.empty() ? "latest" : o.args.front(), q),
                                               metrics, o.reference),
        std::cout, o.format);
    return 0;
  } else if (o.mode == "gpus") {
    table = across_gpus(db, o, q);
  } else {
    if (o.args.size() < 2)
      throw usage_error("compare runs needs two or more runs, baselines or commits, e.g. `bankbench compare runs 3 5`");
    std::vector<query::side> sides;
    for (const auto& spec : o.args) sides.push_back(query::select_side(db, spec, q));
    table = query::compare_sides(sides, metrics);
  }
  query::write_compare(table, std::cout, o.format);
  return 0;
}
} // namespace

run_fn setup_compare(CLI::App& sub, const global_options& global) {
  auto o = std::make_shared<compare_options>();
  sub.add_option("mode", o->mode,
                 "variants [RUN]: the variants of one run; gpus [EXPERIMENT]: the newest run on each GPU; "
                 "runs A B...: runs, baselines or commits")
      ->required()
      ->check(CLI::IsMember({"variants", "gpus", "runs"}));
  sub.add_option("args", o->args, std::string("variants: RUN; gpus: EXPERIMENT; runs: each ") + k_spec_kinds);
  refuse_empty(sub.add_option("-m,--metric", o->metrics,
                              "metrics as columns, repeated or comma-separated (default: load and store wavefronts "
                              "per request, median_ns); median_ns and bandwidth_gbps come from the timings"),
               "a metric name, e.g. load_wavefronts_per_request");
  refuse_empty(sub.add_option("--reference", o->reference,
                              "variants: the variant the others are divided by (default: the first)"),
               "a variant name, e.g. naive");
  sub.add_flag("--lines", o->lines,
               "runs A B only: per configuration and source line, the excess wavefronts of A beside B's (needs "
               "`run --lines` on both)");
  add_format_option(sub, o->format);
  return [o, &global] { return run_compare(*o, global); };
}

} // namespace bb::cli
