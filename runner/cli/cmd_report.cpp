// bankbench report [--out report.html]: one self-contained HTML page of charts and highlights.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "runner/cli/commands.hpp"
#include "runner/common/atomic_file.hpp"
#include "runner/common/error.hpp"
#include "runner/render/report.hpp"
#include "runner/store/database.hpp"
#include "runner/store/samples.hpp"

namespace bb::cli {

namespace {
struct report_cli {
  std::string out = "report.html";
  render::report_options options;
};

int run_report(const report_cli& o, const global_options& g) {
  const auto db = store::database::open_for_query(g.db);
  render::report_options options = o.options;
  options.generated_at = store::utc_now_iso8601();
  std::ostringstream page;
  const auto summary = render::write_report(db, options, page);
  write_file_atomically(o.out, page.str());
  std::cout << fmt::format("wrote {}: {} experiment{}, {} charts, {} failed expectation{}, {} regression{}\n", o.out,
                           summary.experiments, summary.experiments == 1 ? "" : "s", summary.charts,
                           summary.failed_expectations, summary.failed_expectations == 1 ? "" : "s",
                           summary.regressions, summary.regressions == 1 ? "" : "s");
  return 0;
}
} // namespace

run_fn setup_report(CLI::App& sub, const global_options& global) {
  auto o = std::make_shared<report_cli>();
  refuse_empty(sub.add_option("-o,--out", o->out, "the HTML file to write"), "a file name, e.g. report.html")
      ->capture_default_str();
  sub.add_option("-e,--experiment", o->options.experiments, "only these experiments (default: all)");
  return [o, &global] { return run_report(*o, global); };
}

} // namespace bb::cli
