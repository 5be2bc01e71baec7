// bankbench merge A.sqlite B.sqlite ... --into results/bankbench.sqlite: bring databases together.
#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "runner/cli/commands.hpp"
#include "runner/common/error.hpp"
#include "runner/common/path_text.hpp"
#include "runner/store/database.hpp"
#include "runner/store/merge.hpp"

namespace bb::cli {

namespace {
struct merge_options {
  std::vector<std::string> sources;
  std::string into;
};

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (std::filesystem::exists(a, ec) && std::filesystem::exists(b, ec)) return std::filesystem::equivalent(a, b, ec);
  return std::filesystem::weakly_canonical(a, ec) == std::filesystem::weakly_canonical(b, ec);
}

std::string summary(const std::string& source, const store::merge_counts& c) {
  std::string line = fmt::format("merged {}: {} run{} added", source, c.runs_added, c.runs_added == 1 ? "" : "s");
  if (c.runs_extended > 0) line += fmt::format(", {} completed", c.runs_extended);
  line += fmt::format(", {} already there; {} GPU{} added; {} configurations, {} metric rows, {} samples",
                      c.runs_present, c.gpus_added, c.gpus_added == 1 ? "" : "s", c.configurations_added,
                      c.metric_rows_added, c.sample_rows_added);
  if (c.line_collections_added > 0)
    line += fmt::format("; lines of {} configuration{} ({} instructions)", c.line_collections_added,
                        c.line_collections_added == 1 ? "" : "s", c.line_rows_added);
  if (c.baselines_added + c.baselines_present > 0)
    line += fmt::format("; {} baseline{} added", c.baselines_added, c.baselines_added == 1 ? "" : "s");
  return line;
}

int run_merge(const merge_options& o, const global_options& g) {
  const std::string into = o.into.empty() ? g.db : o.into;
  // Every source is opened and judged before the destination is touched: a foreign or newer
  // file stops the merge with nothing written.
  std::vector<store::database> sources;
  for (const auto& path : o.sources) {
    if (same_file(path, into))
      throw usage_error(fmt::format("{} is the destination; it cannot be merged into itself", shown_path(path)));
    sources.push_back(store::database::open_read_only(path));
  }
  auto db = store::database::open(into);
  for (const auto& source : sources) {
    const auto counts = store::merge_database(db, source);
    std::cout << summary(source.path(), counts) << '\n';
    for (const auto& name : counts.baselines_differing)
      spdlog::warn("baseline {} in {} differs from the one in {}; kept the one in {}", name, source.path(), into, into);
  }
  return 0;
}
} // namespace

run_fn setup_merge(CLI::App& sub, const global_options& global) {
  auto o = std::make_shared<merge_options>();
  // Each source is judged as it is opened (open_read_only): a missing file, a folder or a FIFO is
  // named for what it is, in bankbench's words.
  refuse_empty(sub.add_option("sources", o->sources, "databases to bring in; they are only read"),
               "a database file to bring in")
      ->required();
  refuse_empty(sub.add_option("--into", o->into, "the database to merge into, created when missing (default: --db)"),
               "a database file, e.g. merged.sqlite");
  return [o, &global] { return run_merge(*o, global); };
}

} // namespace bb::cli
