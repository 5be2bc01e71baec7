// bankbench show [RUN]: a run's results table (the latest run when none is given).
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "common/error.hpp"
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
  std::int64_t id = 0;
  if (o.run == "latest") {
    const auto latest = db.latest_run_id();
    if (!latest) throw usage_error(g.db + " holds no runs yet; run `bankbench run` first");
    id = *latest;
  } else {
    try {
      std::size_t used = 0;
      id = std::stoll(o.run, &used);
      if (used != o.run.size()) throw std::invalid_argument(o.run);
    } catch (const std::exception&) {
      throw usage_error("RUN must be a run id or `latest`, not '" + o.run + "' (see `bankbench list runs`)");
    }
  }
  query::show_run(db, id, std::cout, query::parse_format(o.format));
  return 0;
}
} // namespace

run_fn setup_show(CLI::App& sub, const global_options& global) {
  auto o = std::make_shared<show_options>();
  sub.add_option("run", o->run, "run id, or `latest`")->capture_default_str();
  sub.add_option("-f,--format", o->format, "table, markdown or csv")
      ->check(CLI::IsMember({"table", "markdown", "csv"}))
      ->capture_default_str();
  return [o, &global] { return run_show(*o, global); };
}

} // namespace bb::cli
