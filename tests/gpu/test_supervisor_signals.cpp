// The supervised GPU run: SIGTERM or SIGHUP sent to the supervisor alone reaches its worker, which
// stores the configuration in flight; the run is marked interrupted, nothing of it is left
// running, and --resume completes it. A supervisor killed with -9 takes its worker along and
// leaves a stale run that --resume completes.
#include <gtest/gtest.h>

#include <csignal>
#include <chrono>
#include <filesystem>
#include <thread>

#include "../cli/cli_db.hpp"
#include "gpu_test_util.hpp"

namespace {

using bb::test::query_text;

/// Processes whose command line names `needle` (the run's own database path).
int processes_naming(const std::string& needle) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const auto cmdline = bb::test::slurp(e.path() / "cmdline");
    if (cmdline.find(needle) != std::string::npos) ++n;
  }
  return n;
}

void stop_supervisor(int sig) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "g.sqlite").string();
  const auto exp = bb::test::sweep_experiment(tmp.path, "sweep", 300); // 900 configurations
  const bb::test::background_run run(tmp.path, "-q --db '" + db + "' run --no-timing '" + exp + "'", "");
  ASSERT_GE(run.wait_for_rows(db, 20), 20) << run.err();
  ASSERT_EQ(kill(run.pid, sig), 0);
  const int code = run.exit_code(60);
  if (sig == SIGKILL) {
    EXPECT_EQ(code, 137);
    std::this_thread::sleep_for(std::chrono::milliseconds(500)); // PR_SET_PDEATHSIG reaches the worker
    EXPECT_EQ(query_text(db, "select status from runs where id = 1"), "running");
    EXPECT_NE(bb::test::run_cli("--db '" + db + "' list runs").out.find("stale (--resume 1)"), std::string::npos);
  } else {
    EXPECT_EQ(code, 128 + sig) << run.err();
    EXPECT_EQ(query_text(db, "select status from runs where id = 1"), "interrupted");
    EXPECT_NE(run.err().find("resume run 1 with: bankbench --db '" + db + "' run --resume 1"), std::string::npos)
        << run.err();
  }
  EXPECT_EQ(processes_naming(db), 0) << "a worker was left running";
  EXPECT_EQ(query_text(db, "pragma integrity_check"), "ok");
  const auto r = bb::test::run_cli("-q --db '" + db + "' run --no-timing --resume 1");
  EXPECT_LE(r.exit_code, 1) << r.err; // 1: some tiny n may be unsupported
  EXPECT_EQ(query_text(db, "select count(*) || ' ' || count(distinct seq) from configurations"), "900 900");
  EXPECT_EQ(query_text(db, "select status from runs where id = 1"), "completed");
}

} // namespace

TEST(gpu_supervisor_signals, sigterm_stops_worker_and_run) {
  BB_REQUIRE_GPU();
  stop_supervisor(SIGTERM);
}

TEST(gpu_supervisor_signals, sighup_stops_worker_and_run) {
  BB_REQUIRE_GPU();
  stop_supervisor(SIGHUP);
}

TEST(gpu_supervisor_signals, kill_9_takes_the_worker_along_and_resume_completes) {
  BB_REQUIRE_GPU();
  stop_supervisor(SIGKILL);
}

TEST(gpu_supervisor_signals, a_model_run_never_resumes_this_gpu_run) {
  BB_REQUIRE_GPU();
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "m.sqlite").string();
  const auto exp = bb::test::sweep_experiment(tmp.path, "sweep", 300);
  const bb::test::background_run run(tmp.path, "-q --db '" + db + "' run --no-timing '" + exp + "'", "");
  ASSERT_GE(run.wait_for_rows(db, 20), 20) << run.err();
  kill(run.pid, SIGTERM);
  ASSERT_EQ(run.exit_code(60), 143);
  const auto before = query_text(db, "select count(*) from configurations");
  const auto r = bb::test::run_cli("--db '" + db + "' run --backend model --resume 1");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("predictions must never fill a measured run"), std::string::npos) << r.err;
  EXPECT_EQ(query_text(db, "select count(*) from configurations"), before);
}
