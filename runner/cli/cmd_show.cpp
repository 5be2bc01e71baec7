// bankbench show [RUNS]: the results table of each run a SPEC names (query/selector.hpp; default:
// every run of the latest session, i.e. of the last `bankbench run`).
#include <iostream>

#include <CLI/CLI.hpp>

#include "runner/cli/commands.hpp"
#include "runner/common/error.hpp"
#include "runner/query/selector.hpp"
#include "runner/query/show.hpp"
#include "runner/store/database.hpp"

namespace bb::cli {

namespace {
struct show_options {
  std::string run = "latest";
  std::string format = "table";
};

int run_show(const show_options& o, const global_options& g) {
  const auto db = store::database::open_for_query(g.db);
  const auto format = query::parse_format(o.format);
  std::vector<std::int64_t> ids;
  for (const auto& run : query::select_runs(db, o.run)) ids.push_back(run.id);
  query::show_runs(db, ids, std::cout, format);
  return 0;
}
} // namespace

run_fn setup_show(CLI::App& sub, const global_options& global) {
  auto o = std::make_shared<show_options>();
  sub.add_option("runs", o->run, std::string(k_spec_kinds) + "; latest: every run of the last `bankbench run`")
      ->capture_default_str();
  add_format_option(sub, o->format,
                    "csv: one table of every selected run's configurations, unrounded; json: each run with its "
                    "configurations");
  return [o, &global] { return run_show(*o, global); };
}

} // namespace bb::cli
