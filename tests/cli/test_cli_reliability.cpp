// Durability without a GPU (model backend): kill -9 mid-run leaves a sound database that
// --resume completes without duplicates; several writers on one database lose no row.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <thread>

#include "cli_db.hpp"

using bb::test::query_text;
using bb::test::sweep_experiment;

TEST(cli_reliability, kill_9_leaves_a_sound_database_and_resume_completes_it) {
  bb::test::temp_dir tmp;
  const auto exp = sweep_experiment(tmp.path, "sweep", 1500); // 4500 configurations
  const auto db = (tmp.path / "r.sqlite").string();
  const auto pid_file = tmp.path / "pid";
  const std::string cmd = "cd '" BB_SOURCE_DIR "' && CUDA_VISIBLE_DEVICES= '" BB_BINARY "' -q --db '" + db +
                          "' run --backend model '" + exp + "' >/dev/null 2>&1 & echo $! > '" + pid_file.string() + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  // Kill once some configurations are stored, well before the run can finish.
  int stored = 0;
  for (int i = 0; i < 400 && stored < 200; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const auto n = query_text(db, "select count(*) from configurations");
    stored = n.empty() ? 0 : std::stoi(n);
  }
  const pid_t pid = std::stoi(bb::test::slurp(pid_file));
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ASSERT_GE(stored, 200) << "the run stored too little before the kill";

  EXPECT_EQ(query_text(db, "pragma integrity_check"), "ok");
  EXPECT_EQ(query_text(db, "select status from runs where id = 1"), "running");
  const int before = std::stoi(query_text(db, "select count(*) from configurations"));
  EXPECT_LT(before, 4500);

  const auto r = bb::test::run_cli("-q --db '" + db + "' run --backend model --resume 1", "CUDA_VISIBLE_DEVICES=");
  EXPECT_NE(r.exit_code, 2) << r.err;
  EXPECT_EQ(query_text(db, "select count(*) from configurations"), "4500");
  EXPECT_EQ(query_text(db, "select count(distinct seq) from configurations where run_id = 1"), "4500");
  EXPECT_EQ(query_text(db, "select status from runs where id = 1"), "completed");
  EXPECT_EQ(query_text(db, "select count(*) from runs"), "1");

  const auto again = bb::test::run_cli("--db '" + db + "' run --backend model --resume 1", "CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("already complete"), std::string::npos) << again.err;
}

TEST(cli_reliability, four_writers_on_one_database_lose_no_row) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "shared.sqlite").string();
  std::string cmd = "cd '" BB_SOURCE_DIR "' && (";
  for (int w = 0; w < 4; ++w) {
    const auto exp = sweep_experiment(tmp.path, "writer" + std::to_string(w), 334); // 1002 configurations
    cmd += "CUDA_VISIBLE_DEVICES= '" BB_BINARY "' -q --db '" + db + "' run --backend model '" + exp +
           "' >/dev/null 2>>'" + (tmp.path / "err").string() + "' & ";
  }
  cmd += "wait)";
  ASSERT_EQ(std::system(cmd.c_str()) == -1, false);
  const auto err = bb::test::slurp(tmp.path / "err");
  EXPECT_EQ(err.find("locked"), std::string::npos) << err;
  EXPECT_EQ(query_text(db, "select count(*) from runs"), "4");
  EXPECT_EQ(query_text(db, "select count(*) from configurations"), "4008");
  EXPECT_EQ(query_text(db, "select count(*) from runs where status = 'completed'"), "4");
  EXPECT_EQ(query_text(db, "pragma integrity_check"), "ok");
}

// Ctrl-C (SIGINT) and the other stop signals: tests/cli/test_cli_signals.cpp.
