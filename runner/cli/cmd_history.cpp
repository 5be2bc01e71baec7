// bankbench history VARIANT [--param n=4096] [--metric M]: one configuration across runs and commits.
#include <filesystem>
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "runner/cli/commands.hpp"
#include "runner/common/atomic_file.hpp"
#include "runner/common/error.hpp"
#include "runner/query/history.hpp"
#include "runner/query/metric_info.hpp"
#include "runner/render/history_svg.hpp"
#include "runner/store/database.hpp"
#include "runner/store/results.hpp"

namespace bb::cli {

namespace {
struct history_options {
  query::history_query query;
  std::vector<std::string> params;
  std::string format = "table";
  std::string svg;
};

int run_history(const history_options& o, const global_options& g) {
  const auto db = store::database::open_for_query(g.db);
  query::history_query q = o.query;
  query::check_metric_names({q.metric}, store::stored_metric_names(db), db.path());
  q.params = query::parse_param_filters(o.params);
  const auto points = query::metric_history(db, q);
  if (!o.svg.empty()) { // first: a file that cannot be written (a folder named) ends the command before its output
    write_file_atomically(o.svg, render::history_svg(points, q));
    spdlog::info("wrote the plot to {}", o.svg);
  }
  query::write_history(points, q, std::cout, o.format);
  return 0;
}
} // namespace

run_fn setup_history(CLI::App& sub, const global_options& global) {
  auto o = std::make_shared<history_options>();
  sub.add_option("variant", o->query.variant, "the variant, e.g. padded or transpose/padded")->required();
  sub.add_option("-p,--param", o->params, "a parameter the configuration has, NAME=VALUE, e.g. n=4096 (repeatable)");
  sub.add_option("-m,--metric", o->query.metric, "the metric; median_ns and bandwidth_gbps come from the timings")
      ->capture_default_str();
  sub.add_option("-e,--experiment", o->query.experiment, "only runs of this experiment");
  sub.add_option("-g,--gpu", o->query.gpu, "only runs on this architecture (sm_90, model) or GPU (part of its name)");
  add_number_option(sub, "-n,--limit", o->query.limit, "only the newest N runs (0: all)", number_rule::integer(0, 1e9));
  add_format_option(sub, o->format, "table adds a bar per run");
  refuse_empty(sub.add_option("--svg", o->svg, "also write the plot as an SVG file"), "a file name, e.g. history.svg");
  return [o, &global] { return run_history(*o, global); };
}

} // namespace bb::cli
