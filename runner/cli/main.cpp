// bankbench: shared-memory bank-conflict experiments, measured with CUPTI and kept in SQLite.
#include <unistd.h>

#include <cctype>
#include <csignal>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <regex>

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
  // -vv stamps each line with the time of day, so a long run's phases can be placed.
  logger->set_pattern(verbosity >= 2 ? "bankbench: %H:%M:%S.%e %^%l%$: %v" : "bankbench: %^%l%$: %v");
  logger->set_level(verbosity < 0    ? spdlog::level::warn
                    : verbosity == 0 ? spdlog::level::info
                    : verbosity == 1 ? spdlog::level::debug
                                     : spdlog::level::trace);
  spdlog::set_default_logger(logger);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// The one of `names` that `word` is a typo of, compared without case (`VALIDATE` is
/// `validate`); "" when none is close.
std::string closest_name(const std::string& word, const std::vector<std::string>& names) {
  std::vector<std::string> lowered;
  for (const auto& n : names) lowered.push_back(lower(n));
  const std::string best = bb::closest_match(lower(word), lowered);
  for (std::size_t i = 0; i < names.size(); ++i)
    if (!best.empty() && lowered[i] == best) return names[i];
  return "";
}

/// "; did you mean 'PREFIX NAME'?" or "".
std::string hint_for(const std::string& word, const std::vector<std::string>& names, const std::string& prefix = "") {
  const std::string best = closest_name(word, names);
  return best.empty() ? "" : "; did you mean '" + prefix + best + "'?";
}

// CLI11 says "The following argument was not expected: rn"; name the command that was meant.
int unknown_command(const std::string& word, const std::string& parent, const std::vector<std::string>& names) {
  std::fprintf(stderr, "bankbench: error: unknown command '%s%s'%s\n", parent.c_str(), word.c_str(),
               hint_for(word, names, parent).c_str());
  std::fprintf(stderr, "run `bankbench %s--help` for the list of commands\n", parent.c_str());
  return static_cast<int>(bb::exit_code::usage);
}

/// The long options (--name) `app` and the commands above it take: a subcommand passes the
/// options it does not know up (fallthrough).
std::vector<std::string> long_options(const CLI::App* app) {
  std::vector<std::string> names;
  for (; app != nullptr; app = app->get_parent())
    for (const CLI::Option* o : app->get_options())
      for (const auto& n : o->get_lnames()) names.push_back("--" + n);
  return names;
}

int unknown_option(const std::string& arg, const CLI::App* app, const std::string& command) {
  const std::string word = arg.substr(0, arg.find('='));
  const std::string hint = word.rfind("--", 0) == 0 ? hint_for(word, long_options(app)) : "";
  std::fprintf(stderr, "bankbench: error: unknown option '%s'%s\n", word.c_str(), hint.c_str());
  std::fprintf(stderr, "run `bankbench%s --help` for the options\n", command.c_str());
  return static_cast<int>(bb::exit_code::usage);
}

/// Options valid before the command: --db VALUE (or --db=VALUE), -v/-q/-h (and -vv), --verbose,
/// --quiet, --version, --help.
bool global_option(const std::string& arg) {
  if (arg == "--db" || arg.rfind("--db=", 0) == 0 || arg == "--verbose" || arg == "--quiet" || arg == "--version" ||
      arg == "--help" || arg == "--")
    return true;
  if (arg.size() < 2 || arg[1] == '-') return false;
  return arg.find_first_not_of("vqh", 1) == std::string::npos;
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

/// The deepest command parsed: `slurm submit` of `bankbench slurm submit ...`.
const CLI::App* deepest(const CLI::App& app) {
  const CLI::App* a = &app;
  while (!a->get_subcommands().empty()) a = a->get_subcommands()[0];
  return a;
}

/// The names of `app`'s own subcommands.
std::vector<std::string> subcommand_names(const CLI::App* app) {
  std::vector<std::string> names;
  for (const CLI::App* s : app->get_subcommands([](const CLI::App*) { return true; })) names.push_back(s->get_name());
  return names;
}

// CLI11's own messages get the prefix every other error has, and the command's --help; the
// commonest say what is wrong in bankbench's words, with a did-you-mean.
int usage_failure(const CLI::App& app, const CLI::ParseError& e) {
  const std::string command = command_words(app);
  const CLI::App* at = deepest(app);
  std::string what = e.what();
  const std::vector<std::string> rest = app.remaining(true);
  std::string first_word, first_option;
  for (const auto& r : rest) {
    if (first_option.empty() && r.size() > 1 && r[0] == '-' && r != "--") first_option = r;
    if (first_word.empty() && !r.empty() && r[0] != '-') first_word = r;
  }
  // An option nobody takes is the first thing to say, whatever CLI11 stopped at.
  if (!first_option.empty()) return unknown_option(first_option, at, command);
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    if (!first_word.empty()) what = "unexpected argument '" + first_word + "' for `bankbench" + command + "`";
  }
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr &&
      what.find("subcommand is required") != std::string::npos) {
    const auto names = subcommand_names(at);
    if (!first_word.empty()) return unknown_command(first_word, command.substr(1) + " ", names);
    what = "`bankbench" + command + "` needs one of its commands: ";
    for (std::size_t i = 0; i < names.size(); ++i) what += (i ? ", " : "") + names[i];
  }
  // IsMember's "--backend: modle not in {cupti,model}".
  static const std::regex not_in(R"(^(\S+): (.*) not in \{(.*)\}$)");
  std::smatch m;
  if (std::regex_match(what, m, not_in)) {
    std::vector<std::string> names;
    std::string list = m[3];
    for (std::size_t start = 0; start <= list.size();) {
      const std::size_t comma = std::min(list.find(',', start), list.size());
      names.push_back(list.substr(start, comma - start));
      start = comma + 1;
    }
    std::string choices;
    for (std::size_t i = 0; i < names.size(); ++i) choices += (i ? ", " : "") + names[i];
    const std::string name = m[1], value = m[2];
    what = (name[0] == '-' ? name + " must be one of " : "`bankbench" + command + "` takes one of ") + choices +
           ", got '" + value + "'" + hint_for(value, names);
  }
  if (what.find(" excludes ") != std::string::npos && what.find("--quiet") != std::string::npos &&
      what.find("--verbose") != std::string::npos)
    what = "-q (quiet) and -v (verbose) contradict each other; pass one of them";
  // CLI11's "--top: 1 required UINT missing", "--format: At Most 1 required but received 2" and
  // "--row excludes --col", in words.
  static const std::regex missing(R"(^(-\S+): \d+ required \S+ missing$)");
  static const std::regex repeated(R"(^(-\S+): At Most 1 required but received (\d+)$)");
  static const std::regex excludes(R"(^(-\S+) excludes (-\S+)$)");
  if (std::regex_match(what, m, missing))
    what = m.str(1) + " needs a value after it";
  else if (std::regex_match(what, m, repeated))
    what = m.str(1) + " is given " + m.str(2) + " times; give it once";
  else if (std::regex_match(what, m, excludes))
    what = m.str(1) + " and " + m.str(2) + " cannot be given together; give one of them";
  std::fprintf(stderr, "bankbench: error: %s\n", what.c_str());
  std::fprintf(stderr, "run `bankbench%s --help` for the options\n", command.c_str());
  return static_cast<int>(bb::exit_code::usage);
}

// What went to stdout must have arrived: `bankbench export > full-disk/x.csv` is not a success.
// Standard output is an output file of every command (printf, fmt::print and std::cout all reach
// stdio's stdout), checked once here on every way out of main, --help included.
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

int run_main(int argc, char** argv);

int main(int argc, char** argv) {
  // A compile server that `run`, `validate` and `compile` start for their parallel compiles.
  if (argc == 2 && std::strcmp(argv[1], "__compile-server") == 0) return bb::source::serve_compiles();
  // Past a file-size limit (`ulimit -f`) a write fails with EFBIG instead of killing the process,
  // so it is a write error like a full disk: exit 4 for the database (the run marked interrupted),
  // 6 for an output file.
  std::signal(SIGXFSZ, SIG_IGN);
  return finish_output(run_main(argc, argv));
}

int run_main(int argc, char** argv) {
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
  bb::cli::refuse_empty(app.add_option("--db", global.db,
                                       "results database (or the BANKBENCH_DB environment variable)"),
                        "a database file, e.g. results/bankbench.sqlite")
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

  // Before the command only global options may come, and the first word that is not one (or
  // --db's value) must name a command.
  std::vector<std::string> command_names;
  for (const auto& c : bb::cli::commands()) command_names.emplace_back(c.name);
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--db") {
      ++i;
      continue;
    }
    if (arg.empty()) continue;
    if (arg[0] == '-') {
      if (!global_option(arg)) return unknown_option(arg, &app, "");
      continue;
    }
    bool known = false;
    for (const auto& c : command_names) known = known || arg == c;
    if (!known) return unknown_command(arg, "", command_names);
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
      if (sub->parsed()) return run();
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
