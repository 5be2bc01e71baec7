// bankbench lines [RUN] [-e EXPERIMENT] [--variant V] [-p k=v]... [--top N]: the source lines of each
// configuration's kernel ranked by shared-memory wavefronts beyond the ideal (`run --lines`).
#include <iostream>

#include <CLI/CLI.hpp>

#include "runner/cli/commands.hpp"
#include "runner/query/history.hpp"
#include "runner/query/lines.hpp"
#include "runner/store/database.hpp"

namespace bb::cli {

namespace {
struct lines_options {
  query::lines_query query;
  std::vector<std::string> params;
  std::size_t top = 10;
  std::string format = "table";
};

int run_lines(const lines_options& o, const global_options& g) {
  const auto db = store::database::open_for_query(g.db);
  const auto format = query::parse_format(o.format);
  query::lines_query q = o.query;
  q.params = query::parse_param_filters(o.params);
  query::write_lines(query::select_lines(db, q), o.top, std::cout, format);
  return 0;
}
} // namespace

run_fn setup_lines(CLI::App& sub, const global_options& global) {
  auto o = std::make_shared<lines_options>();
  sub.add_option("run", o->query.run, std::string(k_spec_kinds) + "; latest: every run of the last `bankbench run`")
      ->capture_default_str();
  sub.add_option("-e,--experiment", o->query.experiment, "only runs of this experiment");
  // No -v: it is the global --verbose, which may come after the command.
  sub.add_option("--variant", o->query.variant, "only this variant, e.g. two_way or source/two_way");
  sub.add_option("-p,--param", o->params, "only configurations with this parameter, NAME=VALUE (repeatable)");
  add_number_option(sub, "-n,--top", o->top, "the N lines with the most excess per configuration; 0: every line",
                    number_rule::integer(0, 1e9))
      ->capture_default_str();
  add_format_option(sub, o->format,
                    "csv: one row per line, residual or configuration without lines; json: each configuration "
                    "with its lines");
  return [o, &global] { return run_lines(*o, global); };
}

} // namespace bb::cli
