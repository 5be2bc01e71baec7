// What the command-line parser refuses is said in bankbench's words, with the command's --help and
// a did-you-mean where a name is close: unknown commands (without regard to case), unknown
// options before and after the command, a missing or unknown subcommand, a value not among the
// choices, an argument too many. Each is a usage error, exit 2.
#include <gtest/gtest.h>

#include "cli_runner.hpp"

namespace {

struct refused {
  std::string args;
  std::string first_line; ///< stderr's first line, whole
  std::string second_line;
};

void expect_refused(const refused& c) {
  const auto r = bb::test::run_cli("--db /nonexistent/x.sqlite " + c.args);
  EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.err;
  const auto nl = r.err.find('\n');
  EXPECT_EQ(r.err.substr(0, nl), "bankbench: error: " + c.first_line) << c.args;
  EXPECT_EQ(r.err.substr(nl + 1), c.second_line + "\n") << c.args;
  EXPECT_EQ(r.err.find("The following"), std::string::npos) << r.err;
}

} // namespace

TEST(cli_parser_words, unknown_commands_get_a_suggestion_without_regard_to_case) {
  for (const auto& c : std::vector<refused>{
           {"VALIDATE", "unknown command 'VALIDATE'; did you mean 'validate'?",
            "run `bankbench --help` for the list of commands"},
           {"Lsit runs", "unknown command 'Lsit'; did you mean 'list'?",
            "run `bankbench --help` for the list of commands"},
           {"frobnicate", "unknown command 'frobnicate'", "run `bankbench --help` for the list of commands"},
           {"baseline sav x", "unknown command 'baseline sav'; did you mean 'baseline save'?",
            "run `bankbench baseline --help` for the list of commands"},
           {"slurm SUBMIT", "unknown command 'slurm SUBMIT'; did you mean 'slurm submit'?",
            "run `bankbench slurm --help` for the list of commands"},
           {"baseline", "`bankbench baseline` needs one of its commands: save, list, show, export, import, delete",
            "run `bankbench baseline --help` for the options"},
       })
    expect_refused(c);
}

TEST(cli_parser_words, unknown_options_get_a_suggestion_before_and_after_the_command) {
  for (const auto& c : std::vector<refused>{
           {"run --dryrun", "unknown option '--dryrun'; did you mean '--dry-run'?",
            "run `bankbench run --help` for the options"},
           {"--dbb x list runs", "unknown option '--dbb'; did you mean '--db'?",
            "run `bankbench --help` for the options"},
           {"list runs --verbos", "unknown option '--verbos'; did you mean '--verbose'?",
            "run `bankbench list --help` for the options"},
           {"compare --metrc x", "unknown option '--metrc'; did you mean '--metric'?",
            "run `bankbench compare --help` for the options"},
           {"slurm submit --sweeep s -N 2", "unknown option '--sweeep'; did you mean '--sweep'?",
            "run `bankbench slurm submit --help` for the options"},
           {"run --time-limt=3", "unknown option '--time-limt'; did you mean '--time-limit'?",
            "run `bankbench run --help` for the options"},
           {"run --no-such-option", "unknown option '--no-such-option'", "run `bankbench run --help` for the options"},
           {"-n run", "unknown option '-n'", "run `bankbench --help` for the options"},
       })
    expect_refused(c);
}

TEST(cli_parser_words, choices_and_extra_arguments_are_said_in_words) {
  for (const auto& c : std::vector<refused>{
           {"run --backend modle", "--backend must be one of cupti, model, got 'modle'; did you mean 'model'?",
            "run `bankbench run --help` for the options"},
           {"export -f jsn", "--format must be one of table, markdown, csv, json, got 'jsn'; did you mean 'json'?",
            "run `bankbench export --help` for the options"},
           {"list rnus",
            "`bankbench list` takes one of families, metrics, runs, gpus, got 'rnus'; did you mean 'runs'?",
            "run `bankbench list --help` for the options"},
           {"show latest extra", "unexpected argument 'extra' for `bankbench show`",
            "run `bankbench show --help` for the options"},
       })
    expect_refused(c);
}

TEST(cli_parser_words, global_options_still_work_before_the_command) {
  const auto r = bb::test::run_cli("-q --db=/nonexistent/x.sqlite -v list families");
  EXPECT_EQ(r.exit_code, 2) << r.err; // -q with -v
  EXPECT_EQ(r.err, "bankbench: error: -q (quiet) and -v (verbose) contradict each other; pass one of them\n");
  const auto ok = bb::test::run_cli("-q list metrics");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("bank_conflicts"), std::string::npos);
}
