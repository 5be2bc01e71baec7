// bankbench: shared-memory bank-conflict experiments, measured with CUPTI and kept in SQLite.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "runner/cli/commands.hpp"
#include "runner/common/error.hpp"
#include "runner/common/suggest.hpp"
#include "runner/source/compile_server.hpp"

namespace {

void setup_logging(int verbosity) {
  auto logger = spdlog::stderr_color_mt("bankbench");
  logger->set_pattern("bankbench: %^%l%$: %v");
  logger->set_level(verbosity < 0    ? spdlog::level::warn
                    : verbosity == 0 ? spdlog::level::info
                    : verbosity == 1 ? spdlog::level::debug
                                     : spdlog::level::trace);
  spdlog::set_default_logger(logger);
}

// CLI11 says "The following argument was not expected: rn"; name the command that was meant.
int unknown_command(const std::string& word) {
  std::vector<std::string> names;
  for (const auto& c : bb::cli::commands()) names.emplace_back(c.name);
  std::string hint = bb::did_you_mean(word, names);
  std::fprintf(stderr, "bankbench: error: unknown command '%s'%s%s\n", word.c_str(), hint.empty() ? "" : "; ",
               hint.c_str());
  std::fprintf(stderr, "run `bankbench --help` for the list of commands\n");
  return static_cast<int>(bb::exit_code::usage);
}

/// " run" or " slurm submit": the command being parsed, for its --help.
std::string command_words(const CLI::App& app) {
  std::string command;
  for (const CLI::App* sub : app.get_subcommands())
    for (const CLI::App* s = sub; s != nullptr; s = s->get_subcommands().empty() ? nullptr : s->get_subcommands()[0])
      command += " " + s->get_name();
  return command;
}

/// A value refused while parsing (add_number_option's checks): its words, and the command's --help.
int value_failure(const CLI::App& app, const bb::error& e) {
  std::fprintf(stderr, "bankbench: error: %s\n", e.what());
  std::fprintf(stderr, "run `bankbench%s --help` for the options\n", command_words(app).c_str());
  return static_cast<int>(e.code());
}

// CLI11's own messages get the prefix every other error has, and the command's --help.
int usage_failure(const CLI::App& app, const CLI::ParseError& e) {
  const std::string command = command_words(app);
  std::string what = e.what();
  if (what.find(" excludes ") != std::string::npos && what.find("--quiet") != std::string::npos &&
      what.find("--verbose") != std::string::npos)
    what = "-q (quiet) and -v (verbose) contradict each other; pass one of them";
  std::fprintf(stderr, "bankbench: error: %s\n", what.c_str());
  std::fprintf(stderr, "run `bankbench%s --help` for the options\n", command.c_str());
  return static_cast<int>(bb::exit_code::usage);
}

// What went to stdout must have arrived: `bankbench export > full-disk/x.csv` is not a success.
int finish_output(int rc) {
  std::cout.flush();
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0 || !std::cout) {
    std::fprintf(stderr, "bankbench: error: cannot write to standard output: %s\n",
                 errno != 0 ? std::strerror(errno) : "write error");
    return rc != 0 ? rc : static_cast<int>(bb::exit_code::output);
  }
  return rc;
}

} // namespace

int main(int argc, char** argv) {
  // A compile server that `run`, `validate` and `compile` start for their parallel compiles.
  if (argc == 2 && std::strcmp(argv[1], "__compile-server") == 0) return bb::source::serve_compiles();
  {
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) bb::source::set_compile_server(std::string(self, static_cast<std::size_t>(n)));
  }
  CLI::App app{"bankbench: measure CUDA shared-memory bank conflicts with CUPTI counters, verify "
               "and time each kernel variant, and keep every result in SQLite.",
               "bankbench"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("bankbench ") + BB_VERSION);
  bb::cli::global_options global;
  // Global options may come before or after the command: a subcommand passes what it does not
  // know up to here (fallthrough, inherited by every subcommand added below).
  app.fallthrough();
  app.add_option("--db", global.db, "results database (or the BANKBENCH_DB environment variable)")
      ->envname("BANKBENCH_DB")
      ->capture_default_str();
  int verbose = 0;
  bool quiet = false;
  app.add_flag("-v,--verbose", verbose, "more detail on stderr (-vv for debug)");
  // Checked after parsing rather than with CLI11's excludes(), which some CLI11 versions (2.4 on
  // Ubuntu 24.04) apply to a lone -q once the flags fall through from a subcommand.
  app.add_flag("-q,--quiet", quiet, "only warnings and errors on stderr (not with -v)");
  app.footer("Exit codes: 0 ok; 1 a configuration failed or an expectation was not met; 2 usage or "
             "experiment-file error; 3 no GPU, no counter permission or another profiler; 4 "
             "database error; 5 internal error (CUDA, CUPTI or a bug); 6 an output file cannot be written; 129/130/"
             "131/143 stopped by SIGHUP/SIGINT/SIGQUIT/SIGTERM.");

  std::vector<std::pair<CLI::App*, bb::cli::run_fn>> subs;
  for (const auto& c : bb::cli::commands()) {
    CLI::App* sub = app.add_subcommand(c.name, c.summary);
    subs.emplace_back(sub, c.setup(*sub, global));
  }

  // The first word that is not an option (or --db's value) must name a command.
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--db") {
      ++i;
      continue;
    }
    if (arg.empty() || arg[0] == '-') continue;
    bool known = false;
    for (const auto& c : bb::cli::commands()) known = known || arg == c.name;
    if (!known) return unknown_command(arg);
    break;
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e); // --help, --version
    return usage_failure(app, e);
  } catch (const bb::error& e) {
    return value_failure(app, e);
  }

  if (quiet && verbose > 0) {
    std::fprintf(stderr, "bankbench: error: -q (quiet) and -v (verbose) contradict each other; pass one of them\n");
    return static_cast<int>(bb::exit_code::usage);
  }
  global.verbosity = quiet ? -1 : verbose;
  setup_logging(global.verbosity);
  for (int i = 0; i < argc; ++i) global.command_line += (i ? " " : "") + std::string(argv[i]);
  try {
    for (auto& [sub, run] : subs)
      if (sub->parsed()) return finish_output(run());
  } catch (const bb::config_error& e) {
    constexpr std::size_t k_shown = 50; // a mangled file can have hundreds; the first ones lead
    const auto& diags = e.diagnostics();
    for (std::size_t i = 0; i < diags.size() && i < k_shown; ++i)
      std::fprintf(stderr, "%s\n", diags[i].to_string().c_str());
    if (diags.size() > k_shown) std::fprintf(stderr, "bankbench: %zu more errors not shown\n", diags.size() - k_shown);
    return static_cast<int>(e.code());
  } catch (const bb::error& e) {
    spdlog::error("{}", e.what());
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    spdlog::error("internal error: {}", e.what());
    return static_cast<int>(bb::exit_code::internal);
  }
  return 0;
}
