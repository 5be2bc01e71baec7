// bankbench techniques [RUNS...] [--out FILE]: the techniques page (docs/techniques.md) from the database.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "runner/cli/commands.hpp"
#include "runner/common/atomic_file.hpp"
#include "runner/common/error.hpp"
#include "runner/query/selector.hpp"
#include "runner/registry/registry.hpp"
#include "runner/render/techniques.hpp"
#include "runner/store/database.hpp"

namespace bb::cli {

namespace {
struct techniques_options {
  std::vector<std::string> runs;
  std::string out;
};

int run_techniques(const techniques_options& o, const global_options& g) {
  const auto db = store::database::open_for_query(g.db);
  std::vector<std::int64_t> ids;
  // Any run selector (12, latest, session:N, commit:SHA); an experiment's newest run wins.
  for (const auto& spec : o.runs)
    for (const auto& r : query::select_runs(db, spec)) ids.push_back(r.id);
  // The whole page is built before the file is touched, so an error leaves the old page in place.
  std::ostringstream page;
  render::write_techniques(db, ids, registry::instance(), page);
  if (o.out.empty() || o.out == "-") {
    std::cout << page.str();
    return 0;
  }
  write_file_atomically(o.out, page.str());
  spdlog::info("wrote {}", o.out);
  return 0;
}
} // namespace

run_fn setup_techniques(CLI::App& sub, const global_options& global) {
  auto o = std::make_shared<techniques_options>();
  sub.add_option("runs", o->runs,
                 std::string("runs, one section each: ") + k_spec_kinds +
                     " (default: the latest run of each experiment on the latest GPU)");
  refuse_empty(sub.add_option("-o,--out", o->out, "Markdown file to write, e.g. docs/techniques.md (default: stdout)"),
               "a file name (or - for standard output)");
  return [o, &global] { return run_techniques(*o, global); };
}

} // namespace bb::cli
