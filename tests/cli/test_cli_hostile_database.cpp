// The database is a file the user keeps: `run` refuses what would not persist, stops when the
// file is deleted or replaced under it or a commit fails, and queries read archived files.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_db.hpp"

namespace fs = std::filesystem;
using bb::test::query_text;

TEST(cli_hostile_database, run_refuses_databases_that_would_not_persist) {
  bb::test::temp_dir tmp;
  for (const std::string db : {":memory:", "file:x.sqlite?mode=memory", "file::memory:?cache=shared", "/dev/null"}) {
    const auto r = bb::test::run_cli("--db '" + db + "' run --backend model experiments/transpose/transpose.yaml",
                                     "CUDA_VISIBLE_DEVICES=");
    EXPECT_EQ(r.exit_code, 4) << db << "\n" << r.err;
    EXPECT_NE(r.err.find("would not keep the results"), std::string::npos) << db << "\n" << r.err;
  }
  EXPECT_FALSE(fs::exists(fs::path(BB_SOURCE_DIR) / "file:x.sqlite?mode=memory"));
}

TEST(cli_hostile_database, a_database_deleted_during_the_run_stops_it_with_an_error) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "d.sqlite").string();
  const auto exp = bb::test::sweep_experiment(tmp.path, "sweep", 3000);
  const bb::test::background_run run(tmp.path, "-q --db '" + db + "' run --backend model '" + exp + "'");
  ASSERT_GE(run.wait_for_rows(db, 100), 100);
  fs::remove(db);
  const int rc = run.exit_code();
  EXPECT_EQ(rc, 4) << run.err();
  EXPECT_NE(run.err().find("was deleted or moved while bankbench was writing"), std::string::npos) << run.err();
  EXPECT_NE(run.err().find("resume with"), std::string::npos) << run.err();
  // no write-ahead log left where SQLite would apply it to the next file of that name
  EXPECT_TRUE(!fs::exists(db + "-wal") || fs::file_size(db + "-wal") == 0);
}

TEST(cli_hostile_database, a_database_replaced_during_the_run_stops_it_and_the_new_file_is_untouched) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "d.sqlite").string(), other = (tmp.path / "other.sqlite").string();
  ASSERT_EQ(
      bb::test::run_cli("-q --db '" + other + "' run --backend model experiments/transpose/transpose.yaml").exit_code,
      0);
  const auto exp = bb::test::sweep_experiment(tmp.path, "sweep", 3000);
  const bb::test::background_run run(tmp.path, "-q --db '" + db + "' run --backend model '" + exp + "'");
  ASSERT_GE(run.wait_for_rows(db, 100), 100);
  fs::rename(other, db);
  EXPECT_EQ(run.exit_code(), 4) << run.err();
  EXPECT_NE(run.err().find("was replaced by another file"), std::string::npos) << run.err();
  EXPECT_EQ(query_text(db, "select count(*) from runs"), "1");
  EXPECT_EQ(query_text(db, "select count(*) from configurations"), "9");
  EXPECT_EQ(query_text(db, "pragma integrity_check"), "ok");
}

TEST(cli_hostile_database, a_full_database_ends_the_run_interrupted_and_resume_completes_it) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "f.sqlite").string();
  const auto exp = bb::test::sweep_experiment(tmp.path, "sweep", 400); // 1200 configurations
  // 300 pages of 4 KiB: the file fills up part of the way through, as a full disk would.
  const auto r = bb::test::run_cli("-q --db '" + db + "' run --backend model '" + exp + "'",
                                   "CUDA_VISIBLE_DEVICES= BB_TEST_MAX_PAGE_COUNT=300");
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("full"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("resume with: bankbench --db '" + db + "' run --backend model --resume 1"), std::string::npos)
      << r.err;
  EXPECT_EQ(query_text(db, "pragma integrity_check"), "ok");
  const int stored = std::stoi(query_text(db, "select count(*) from configurations"));
  EXPECT_GT(stored, 0);
  EXPECT_LT(stored, 1200);
  const auto resumed = bb::test::run_cli("-q --db '" + db + "' run --backend model --resume 1");
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(query_text(db, "select count(*) from configurations"), "1200");
  EXPECT_EQ(query_text(db, "select count(distinct seq) from configurations"), "1200");
  EXPECT_EQ(query_text(db, "select status from runs where id = 1"), "completed");
}

// An archived database on a read-only file system is read without writing anything beside it.
TEST(cli_hostile_database, queries_read_a_database_in_a_folder_that_cannot_be_written) {
  bb::test::temp_dir tmp;
  const auto folder = tmp.path / "archive";
  fs::create_directories(folder);
  const auto db = (folder / "a.sqlite").string();
  ASSERT_EQ(
      bb::test::run_cli("-q --db '" + db + "' run --backend model experiments/transpose/transpose.yaml").exit_code, 0);
  ASSERT_FALSE(fs::exists(db + "-wal"));
  bool mounted = false;
  if (::geteuid() == 0) { // root writes anywhere: only a read-only mount makes the folder unwritable
    mounted = ::mount(folder.c_str(), folder.c_str(), nullptr, MS_BIND, nullptr) == 0 &&
              ::mount(nullptr, folder.c_str(), nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY, nullptr) == 0;
    if (!mounted) GTEST_SKIP() << "cannot make a read-only bind mount here";
  } else {
    ::chmod(folder.c_str(), 0555);
  }
  const auto list = bb::test::run_cli("--db '" + db + "' list runs");
  const auto show = bb::test::run_cli("--db '" + db + "' show latest");
  const auto csv = bb::test::run_cli("--db '" + db + "' export");
  const auto compare = bb::test::run_cli("--db '" + db + "' compare variants");
  const bool only_db = !fs::exists(db + "-wal") && !fs::exists(db + "-shm");
  if (mounted)
    ::umount(folder.c_str());
  else
    ::chmod(folder.c_str(), 0755);
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("completed"), std::string::npos) << list.out;
  EXPECT_EQ(show.exit_code, 0) << show.err;
  EXPECT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_GT(std::count(csv.out.begin(), csv.out.end(), '\n'), 9);
  EXPECT_EQ(compare.exit_code, 0) << compare.err;
  EXPECT_TRUE(only_db);
}

TEST(cli_hostile_database, queries_never_write_to_the_database) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "q.sqlite").string();
  ASSERT_EQ(
      bb::test::run_cli("-q --db '" + db + "' run --backend model experiments/transpose/transpose.yaml").exit_code, 0);
  const auto before = bb::test::slurp(db);
  const std::string report = "report --out '" + (tmp.path / "r.html").string() + "'";
  for (const std::string& args : {std::string("list runs"), std::string("list gpus"), std::string("show latest"),
                                  std::string("export"), std::string("compare variants"), report}) {
    const auto r = bb::test::run_cli("--db '" + db + "' " + args);
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
  }
  EXPECT_EQ(bb::test::slurp(db), before);
}
