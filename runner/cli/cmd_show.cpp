// bankbench show [RUNS]: the results table of each run of a run, session or commit (default: every
// run of the latest session, i.e. of the last `bankbench run`).
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "common/error.hpp"
#include "query/selector.hpp"
#include "query/show.hpp"
#include "store/database.hpp"

namespace bb::cli {

namespace {
struct show_options {
  std::string run = "latest";
  std::string format = "table";
};

int run_show(const show_options& o, const global_options& g) {
  const auto db = store::database::open_for_query(g.db);
  const auto format = query::parse_format(o.format);
  bool first = true;
  for (const auto& run : query::select_runs(db, o.run)) {
    if (!first && format != query::output_format::csv) std::cout << '\n';
    query::show_run(db, run.id, std::cout, format);
    first = false;
  }
  return 0;
}
} // namespace

run_fn setup_show(CLI::App& sub, const global_options& global) {
  auto o = std::make_shared<show_options>();
  sub.add_option("runs", o->run, "run id, session:N, a commit, or `latest` (every run of the last `bankbench run`)")
      ->capture_default_str();
  sub.add_option("-f,--format", o->format, "table, markdown or csv")
      ->check(CLI::IsMember({"table", "markdown", "csv"}))
      ->capture_default_str();
  return [o, &global] { return run_show(*o, global); };
}

} // namespace bb::cli
