// SIGTERM, SIGHUP, SIGQUIT and SIGINT stop a run as Ctrl-C does: what finished is kept, the run is
// marked interrupted with its resume command, exit 128 + the signal. A run killed with -9 shows
// as stale and --resume completes it, every configuration once.
#include <gtest/gtest.h>

#include <csignal>

#include "cli_db.hpp"

using bb::test::query_text;

namespace {

void stop_and_resume(int sig) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "s.sqlite").string();
  const auto exp = bb::test::sweep_experiment(tmp.path, "sweep", 1500); // 4500 configurations
  const bb::test::background_run run(tmp.path, "--db '" + db + "' run --backend model '" + exp + "'");
  ASSERT_GT(run.pid, 0);
  ASSERT_GE(run.wait_for_rows(db, 200), 200);
  ASSERT_EQ(kill(run.pid, sig), 0);
  EXPECT_EQ(run.exit_code(), 128 + sig) << run.err();
  EXPECT_NE(run.err().find("resume run 1 with: bankbench --db '" + db + "' run --backend model --resume 1"),
            std::string::npos)
      << run.err();
  EXPECT_EQ(query_text(db, "select status from runs where id = 1"), "interrupted");
  EXPECT_EQ(query_text(db, "pragma integrity_check"), "ok");
  const int kept = std::stoi(query_text(db, "select count(*) from configurations"));
  EXPECT_GE(kept, 200);
  EXPECT_LT(kept, 4500);

  const auto r = bb::test::run_cli("-q --db '" + db + "' run --backend model --resume 1", "CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(query_text(db, "select count(*) from configurations"), "4500");
  EXPECT_EQ(query_text(db, "select count(distinct seq) from configurations"), "4500");
  EXPECT_EQ(query_text(db, "select status from runs where id = 1"), "completed");
}

} // namespace

TEST(cli_signals, sigterm_stops_the_run_interrupted_with_exit_143) { stop_and_resume(SIGTERM); }
TEST(cli_signals, sighup_stops_the_run_interrupted_with_exit_129) { stop_and_resume(SIGHUP); }
TEST(cli_signals, sigquit_stops_the_run_interrupted_with_exit_131) { stop_and_resume(SIGQUIT); }
TEST(cli_signals, sigint_stops_the_run_interrupted_with_exit_130) { stop_and_resume(SIGINT); }

TEST(cli_signals, kill_9_leaves_a_stale_run_that_resume_completes) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "k.sqlite").string();
  const auto exp = bb::test::sweep_experiment(tmp.path, "sweep", 1500);
  const bb::test::background_run run(tmp.path, "-q --db '" + db + "' run --backend model '" + exp + "'");
  ASSERT_GE(run.wait_for_rows(db, 200), 200);
  ASSERT_EQ(kill(run.pid, SIGKILL), 0);
  EXPECT_EQ(run.exit_code(), 128 + SIGKILL);
  EXPECT_EQ(query_text(db, "select status from runs where id = 1"), "running");
  EXPECT_EQ(query_text(db, "select pid from runs where id = 1"), std::to_string(run.pid));

  const auto list = bb::test::run_cli("--db '" + db + "' list runs");
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("stale (--resume 1)"), std::string::npos) << list.out;

  const auto r = bb::test::run_cli("-q --db '" + db + "' run --backend model --resume 1", "CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(query_text(db, "select count(*) from configurations"), "4500");
  EXPECT_EQ(query_text(db, "select count(distinct seq) from configurations"), "4500");
  EXPECT_EQ(query_text(db, "pragma integrity_check"), "ok");
  const auto after = bb::test::run_cli("--db '" + db + "' list runs");
  EXPECT_EQ(after.out.find("stale"), std::string::npos) << after.out;
  EXPECT_NE(after.out.find("completed"), std::string::npos) << after.out;
}
