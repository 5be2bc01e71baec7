// Global options (--db, -v, -q) before or after the command, BANKBENCH_DB, and options that
// contradict each other or that the chosen mode ignores.
#include <algorithm>

#include <gtest/gtest.h>

#include "cli_runner.hpp"

using bb::test::run_cli;

namespace {
const std::string k_no_gpu = "CUDA_VISIBLE_DEVICES=";
const std::string k_file = "experiments/transpose/transpose.yaml";
} // namespace

TEST(cli_global_options, db_is_accepted_after_the_command) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "after.sqlite").string();
  const auto r = run_cli("run --backend model " + k_file + " --db '" + db + "'", k_no_gpu);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(db));
  const auto runs = run_cli("list runs --db '" + db + "'");
  EXPECT_EQ(runs.exit_code, 0) << runs.err;
  EXPECT_NE(runs.out.find("transpose"), std::string::npos) << runs.out;
}

TEST(cli_global_options, db_after_a_nested_command_reaches_it) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "b.sqlite").string();
  ASSERT_EQ(run_cli("run -b model " + k_file + " --db '" + db + "'", k_no_gpu).exit_code, 0);
  const auto r = run_cli("baseline save first 1 --db '" + db + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto list = run_cli("baseline list --db '" + db + "'");
  EXPECT_NE(list.out.find("first"), std::string::npos) << list.out << list.err;
}

TEST(cli_global_options, environment_variable_names_the_database_and_the_flag_wins) {
  bb::test::temp_dir tmp;
  const auto env_db = (tmp.path / "env.sqlite").string(), flag_db = (tmp.path / "flag.sqlite").string();
  const auto by_env = run_cli("run -b model " + k_file, "BANKBENCH_DB='" + env_db + "' " + k_no_gpu);
  ASSERT_EQ(by_env.exit_code, 0) << by_env.err;
  EXPECT_TRUE(std::filesystem::exists(env_db));
  const auto by_flag = run_cli("run -b model " + k_file + " --db '" + flag_db + "'",
                               "BANKBENCH_DB='" + env_db + "' " + k_no_gpu);
  ASSERT_EQ(by_flag.exit_code, 0) << by_flag.err;
  EXPECT_TRUE(std::filesystem::exists(flag_db));
  // the environment's database still holds one run, the flag's one
  // Counted as rows, not searched for "2 ": a commit or fingerprint may end in a 2.
  const auto env_runs = run_cli("list runs", "BANKBENCH_DB='" + env_db + "'");
  const auto count = [](const std::string& text) {
    return std::count(text.begin(), text.end(), '\n') - 2; // less the heading and its rule
  };
  EXPECT_EQ(count(env_runs.out), 1) << env_runs.out;
  const auto flag_runs = run_cli("list runs --db '" + flag_db + "'");
  EXPECT_EQ(count(flag_runs.out), 1) << flag_runs.out;
}

TEST(cli_global_options, verbose_after_the_command_turns_on_debug) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "v.sqlite").string();
  const auto quiet = run_cli("run -b model " + k_file + " -q --db '" + db + "'", k_no_gpu);
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.err.find("info:"), std::string::npos) << quiet.err;
  const auto normal = run_cli("run -b model " + k_file + " --db '" + db + "'", k_no_gpu);
  EXPECT_NE(normal.err.find("bankbench: info: [1/9]"), std::string::npos) << normal.err;
}

TEST(cli_global_options, quiet_and_verbose_together_are_refused) {
  const auto r = run_cli("-q list families -v");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bankbench: error: -q (quiet) and -v (verbose) contradict each other"), std::string::npos)
      << r.err;
}

TEST(cli_global_options, parse_errors_carry_the_common_prefix_and_name_the_command) {
  const auto r = run_cli("show --format yaml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("bankbench: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("run `bankbench show --help` for the options"), std::string::npos) << r.err;
}

TEST(cli_global_options, options_the_model_ignores_are_named_in_a_warning) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "w.sqlite").string();
  const auto r = run_cli("--db '" + db + "' run --backend model --samples 5 --placements 3 " + k_file, k_no_gpu);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("bankbench: warning: --samples, --placements ignored: --backend model predicts"),
            std::string::npos)
      << r.err;
  const auto plain = run_cli("--db '" + db + "' run --backend model " + k_file, k_no_gpu);
  EXPECT_EQ(plain.err.find("ignored"), std::string::npos) << plain.err;
}

TEST(cli_global_options, show_of_a_missing_run_names_list_runs_and_is_a_usage_error) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "s.sqlite").string();
  ASSERT_EQ(run_cli("run -b model " + k_file + " --db '" + db + "'", k_no_gpu).exit_code, 0);
  const auto r = run_cli("show 999 --db '" + db + "'");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("bankbench: error: no run 999 in " + db + "; `bankbench list runs` lists the runs there"),
            std::string::npos)
      << r.err;
}

TEST(cli_global_options, experiment_files_beside_resume_are_named_as_ignored) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "r.sqlite").string();
  ASSERT_EQ(run_cli("run -b model " + k_file + " --db '" + db + "'", k_no_gpu).exit_code, 0);
  const auto r = run_cli("run --resume 1 " + k_file + " --db '" + db + "'", k_no_gpu);
  EXPECT_EQ(r.exit_code, 2) << r.err; // the run is complete
  EXPECT_NE(r.err.find("bankbench: warning: the experiment files ignored: --resume runs the rest of the stored run's "
                       "own experiment"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("bankbench: error: run 1 is already complete; nothing to resume"), std::string::npos) << r.err;
}
