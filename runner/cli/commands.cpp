#include "runner/cli/commands.hpp"

#include <algorithm>
#include <regex>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "runner/common/error.hpp"
#include "runner/query/table.hpp"

namespace bb::cli {

void add_format_option(CLI::App& sub, std::string& format, const std::string& note) {
  const std::vector<std::string> names(std::begin(query::k_format_names), std::end(query::k_format_names));
  sub.add_option("-f,--format", format, "table, markdown, csv or json" + (note.empty() ? "" : "; " + note))
      ->check(CLI::IsMember(names))
      ->capture_default_str();
}

namespace {

/// "--time-limit" of "-t,--time-limit": the name a message uses.
std::string long_name(const std::string& names) {
  std::string best;
  std::size_t start = 0;
  while (start <= names.size()) {
    const std::size_t comma = std::min(names.find(',', start), names.size());
    const std::string n = names.substr(start, comma - start);
    if (best.empty() || n.rfind("--", 0) == 0) best = n;
    start = comma + 1;
  }
  return best;
}

/// A validator that reads the text with parse_number (a usage_error in words when it fails) and
/// hands CLI11 the number as plain digits, so "1e3" reaches an int as 1000.
CLI::Validator number_validator(const std::string& name, const number_rule& rule) {
  return CLI::Validator(
      [name, rule](std::string& text) {
        const double v = parse_number(name, text, rule);
        text = rule.whole ? std::to_string(parse_integer(name, text, rule)) : fmt::format("{}", v);
        return std::string();
      },
      "", "number");
}

template <class T> CLI::Option* add_number(CLI::App& sub, const std::string& names, T& value, const std::string& help,
                                           const number_rule& rule) {
  return sub.add_option(names, value, help)->transform(number_validator(long_name(names), rule));
}

} // namespace

CLI::Option* add_number_option(CLI::App& sub, const std::string& names, int& value, const std::string& help,
                               const number_rule& rule) {
  return add_number(sub, names, value, help, rule);
}
CLI::Option* add_number_option(CLI::App& sub, const std::string& names, unsigned& value, const std::string& help,
                               const number_rule& rule) {
  return add_number(sub, names, value, help, rule);
}
CLI::Option* add_number_option(CLI::App& sub, const std::string& names, std::int64_t& value, const std::string& help,
                               const number_rule& rule) {
  return add_number(sub, names, value, help, rule);
}
CLI::Option* add_number_option(CLI::App& sub, const std::string& names, std::size_t& value, const std::string& help,
                               const number_rule& rule) {
  return add_number(sub, names, value, help, rule);
}
CLI::Option* add_number_option(CLI::App& sub, const std::string& names, double& value, const std::string& help,
                               const number_rule& rule) {
  return add_number(sub, names, value, help, rule);
}

void check_numbers(CLI::Option& option, const number_rule& rule) {
  option.transform(number_validator(option.get_name(), rule));
}

CLI::Option* refuse_empty(CLI::Option* option, const std::string& what) {
  const std::string given = option->get_lnames().empty() && option->get_snames().empty() ? option->get_name(true)
                                                                                         : option->get_name();
  const std::string name = given.rfind('-', 0) == 0 ? given : "the " + given + " argument";
  return option->check(CLI::Validator(
      [name, what](std::string& text) -> std::string {
        if (text.empty()) throw usage_error(fmt::format("{} needs {}, got an empty one", name, what));
        return "";
      },
      "", "not empty"));
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
  add_number_option(sub, "-j,--jobs", jobs,
                    "threads compiling " + what + " (default: $BB_COMPILE_JOBS, else every hardware thread)",
                    number_rule::integer(1, 4096));
}

const std::vector<command>& commands() {
  static const std::vector<command> table = {
      {"run", "run experiments on the GPU: verify, count bank conflicts, time, store", setup_run},
      {"validate", "check experiment files without a GPU", setup_validate},
      {"compile", "compile source variants' kernels into the cache, in parallel, without a GPU", setup_compile},
      {"list", "list families and variants, metric sets, runs or GPUs", setup_list},
      {"show", "print a run's results table", setup_show},
      {"attach", "run a program (PyTorch, Triton, CuPy, a C++ binary) and count its kernels' bank conflicts",
       setup_attach},
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
