#pragma once
/// The subcommand table: one row per runner/cli/cmd_<name>.cpp. It feeds --help and the
/// "did you mean" for mistyped commands.
#include <functional>
#include <string>
#include <vector>

#include "runner/common/number.hpp"

namespace CLI {
class App;
class Option;
} // namespace CLI

namespace bb::cli {

/// Options every subcommand sees.
struct global_options {
  std::string db = "results/bankbench.sqlite";
  int verbosity = 0;        ///< -1 quiet, 0 normal, 1 verbose (-v), 2 debug (-vv)
  std::string command_line; ///< argv joined, stored with each run
};

/// What a subcommand's run function returns becomes the process exit code.
using run_fn = std::function<int()>;

struct command {
  const char* name;
  const char* summary;
  /// Adds the subcommand's options to `sub` and returns the function that runs it.
  run_fn (*setup)(CLI::App& sub, const global_options& global);
};

const std::vector<command>& commands();

/// What a SPEC may be wherever a command takes runs (query/selector.hpp).
inline constexpr const char* k_spec_kinds =
    "a run id, latest, session:N, experiment:NAME, a baseline name or a commit (docs/results.md, Naming runs)";

/// `-f,--format`: table, markdown, csv or json (query::parse_format's names), default table;
/// `note` adds what a format holds for this command.
void add_format_option(CLI::App& sub, std::string& format, const std::string& note = "");

/// Every number-taking option is added here: its text is read by bb::parse_number, so nan, inf,
/// "10s", a fraction where a count is meant and a value out of `rule` are refused in words
/// (exit 2) before the command starts. `names` as CLI11 takes them ("-n,--limit").
CLI::Option* add_number_option(CLI::App& sub, const std::string& names, int& value, const std::string& help,
                               const number_rule& rule);
CLI::Option* add_number_option(CLI::App& sub, const std::string& names, unsigned& value, const std::string& help,
                               const number_rule& rule);
CLI::Option* add_number_option(CLI::App& sub, const std::string& names, std::int64_t& value, const std::string& help,
                               const number_rule& rule);
CLI::Option* add_number_option(CLI::App& sub, const std::string& names, std::size_t& value, const std::string& help,
                               const number_rule& rule);
CLI::Option* add_number_option(CLI::App& sub, const std::string& names, double& value, const std::string& help,
                               const number_rule& rule);

/// The checks of add_number_option for an option added otherwise (a vector, a callback).
void check_numbers(CLI::Option& option, const number_rule& rule);

/// Refuses an empty value of a path option (`-o ''`, `--db ''`, an unset shell variable) as a
/// usage error: "`name` needs `what`, got an empty one", rather than reading it as "not given".
CLI::Option* refuse_empty(CLI::Option* option, const std::string& what);

/// `--arch`: what source variants are compiled for, sm_XY or sm_XYa (checked here).
void add_arch_option(CLI::App& sub, std::string& arch, const std::string& help);

/// `-j,--jobs`: threads compiling source variants, 1 to 4096 (0, the default, leaves it to
/// source::default_jobs(): $BB_COMPILE_JOBS, else every hardware thread).
void add_jobs_option(CLI::App& sub, unsigned& jobs, const std::string& what);

run_fn setup_run(CLI::App& sub, const global_options& global);
run_fn setup_validate(CLI::App& sub, const global_options& global);
run_fn setup_compile(CLI::App& sub, const global_options& global);
run_fn setup_list(CLI::App& sub, const global_options& global);
run_fn setup_show(CLI::App& sub, const global_options& global);
run_fn setup_attach(CLI::App& sub, const global_options& global);
run_fn setup_lines(CLI::App& sub, const global_options& global);
run_fn setup_bankmap(CLI::App& sub, const global_options& global);
run_fn setup_compare(CLI::App& sub, const global_options& global);
run_fn setup_regress(CLI::App& sub, const global_options& global);
run_fn setup_baseline(CLI::App& sub, const global_options& global);
run_fn setup_history(CLI::App& sub, const global_options& global);
run_fn setup_export(CLI::App& sub, const global_options& global);
run_fn setup_merge(CLI::App& sub, const global_options& global);
run_fn setup_report(CLI::App& sub, const global_options& global);
run_fn setup_techniques(CLI::App& sub, const global_options& global);
run_fn setup_slurm(CLI::App& sub, const global_options& global);

} // namespace bb::cli
