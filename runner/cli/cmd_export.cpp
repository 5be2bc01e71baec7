// bankbench export [RUN...] [--table metrics|samples|configurations|lines] [--format csv|json|table|markdown]: long tables.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "runner/cli/commands.hpp"
#include "runner/common/atomic_file.hpp"
#include "runner/common/error.hpp"
#include "runner/query/export.hpp"
#include "runner/query/selector.hpp"
#include "runner/query/table.hpp"
#include "runner/store/database.hpp"

namespace bb::cli {

namespace {
struct export_options {
  std::vector<std::string> runs;
  std::string table = "metrics";
  std::string format = "csv"; // the machine format is export's point
  std::string out;
};

int run_export(const export_options& o, const global_options& g) {
  const auto db = store::database::open_for_query(g.db);
  const auto table = query::parse_long_table(o.table);
  std::vector<std::int64_t> ids;
  for (const auto& spec : o.runs)
    for (const auto& r : query::select_runs(db, spec))
      if (std::find(ids.begin(), ids.end(), r.id) == ids.end()) ids.push_back(r.id); // `export latest 2`: once each
  if (!o.runs.empty() && ids.empty()) return 0;
  const auto format = query::parse_format(o.format);
  if (o.out.empty() || o.out == "-") {
    query::write_export(db, ids, table, format, std::cout);
    return 0;
  }
  std::size_t rows = 0;
  write_file_atomically(o.out, [&](std::ostream& out) { rows = query::write_export(db, ids, table, format, out); });
  spdlog::info("wrote {} rows to {}", rows, o.out);
  return 0;
}
} // namespace

run_fn setup_export(CLI::App& sub, const global_options& global) {
  auto o = std::make_shared<export_options>();
  sub.add_option("runs", o->runs, std::string(k_spec_kinds) + " (default: every run)");
  sub.add_option("-t,--table", o->table,
                 "metrics: one row per metric value; samples: one per timed launch; configurations: one per "
                 "configuration with its summary; lines: one per shared-memory instruction of `run --lines`, with "
                 "its source line")
      ->check(CLI::IsMember({"metrics", "samples", "configurations", "lines"}))
      ->capture_default_str();
  add_format_option(sub, o->format, "default csv; json is an array of records; csv and json stream");
  refuse_empty(sub.add_option("-o,--out", o->out, "file to write (default: stdout)"),
               "a file name (or - for standard output)");
  return [o, &global] { return run_export(*o, global); };
}

} // namespace bb::cli
