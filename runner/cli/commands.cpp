#include "runner/cli/commands.hpp"

#include <regex>

#include <CLI/CLI.hpp>

#include "runner/query/table.hpp"

namespace bb::cli {

void add_format_option(CLI::App& sub, std::string& format, const std::string& note) {
  const std::vector<std::string> names(std::begin(query::k_format_names), std::end(query::k_format_names));
  sub.add_option("-f,--format", format, "table, markdown, csv or json" + (note.empty() ? "" : "; " + note))
      ->check(CLI::IsMember(names))
      ->capture_default_str();
}

void add_arch_option(CLI::App& sub, std::string& arch, const std::string& help) {
  sub.add_option("--arch", arch, help)
      ->check(CLI::Validator(
          [](std::string& a) {
            return std::regex_match(a, std::regex("sm_[0-9]{2,3}a?")) ? "" : "expected sm_XY, such as sm_90";
          },
          "sm_XY", "arch"));
}

void add_jobs_option(CLI::App& sub, unsigned& jobs, const std::string& what) {
  sub.add_option("-j,--jobs", jobs,
                 "threads compiling " + what + " (default: $BB_COMPILE_JOBS, else every hardware thread)")
      ->check(CLI::Range(1, 4096));
}

const std::vector<command>& commands() {
  static const std::vector<command> table = {
      {"run", "run experiments on the GPU: verify, count bank conflicts, time, store", setup_run},
      {"validate", "check experiment files without a GPU", setup_validate},
      {"compile", "compile source variants' kernels into the cache, in parallel, without a GPU", setup_compile},
      {"list", "list families and variants, metric sets, runs or GPUs", setup_list},
      {"show", "print a run's results table", setup_show},
      {"lines", "source lines ranked by shared-memory wavefronts beyond the ideal (data of `run --lines`)",
       setup_lines},
      {"bankmap", "show which bank each lane of one warp request hits (table and SVG), no GPU", setup_bankmap},
      {"compare", "results side by side: the variants of a run, an experiment across GPUs, runs against runs",
       setup_compare},
      {"regress", "judge a candidate against a baseline: exit 1 when conflicts (or, asked, times) regressed",
       setup_regress},
      {"baseline", "save, list, show, export, import or delete named baselines", setup_baseline},
      {"history", "one configuration's metric across runs and commits, as a table and a plot", setup_history},
      {"export", "results as long CSV or JSON for pandas and spreadsheets", setup_export},
      {"merge", "bring databases from other machines into one; merging twice adds nothing", setup_merge},
      {"report", "write one self-contained HTML report with charts", setup_report},
      {"techniques", "write the techniques page (claims, measured signatures, verdicts) as Markdown", setup_techniques},
      {"slurm", "a suite as a Slurm job array (one shard per task): submit, status, resubmit, collect", setup_slurm},
  };
  return table;
}

} // namespace bb::cli
