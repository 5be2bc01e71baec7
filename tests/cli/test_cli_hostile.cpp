// Hostile or broken input through the real binary: exit code 2 or 4, a message naming the
// file, and nothing written.
#include <gtest/gtest.h>

#include <fstream>

#include "cli_runner.hpp"

namespace fs = std::filesystem;

TEST(cli_hostile, every_bad_experiment_file_exits_2_and_writes_nothing) {
  bb::test::temp_dir tmp;
  const auto db = tmp.path / "never.sqlite";
  int files = 0;
  for (const auto& entry : fs::directory_iterator(BB_TEST_DATA "/bad")) {
    if (entry.path().extension() != ".yaml") continue;
    ++files;
    const auto r = bb::test::run_cli("--db '" + db.string() + "' run --backend model '" + entry.path().string() + "'",
                                     "CUDA_VISIBLE_DEVICES=");
    EXPECT_EQ(r.exit_code, 2) << entry.path() << "\n" << r.err;
    EXPECT_NE(r.err.find(entry.path().filename().string()), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(db)) << entry.path();
  }
  EXPECT_GE(files, 50);
}

TEST(cli_hostile, a_foreign_file_as_database_is_refused_and_left_untouched) {
  bb::test::temp_dir tmp;
  const auto db = tmp.path / "notes.txt";
  {
    std::ofstream f(db, std::ios::binary);
    f << "these are my notes, not a database\n";
  }
  const auto before = bb::test::slurp(db);
  const auto r = bb::test::run_cli(
      "--db '" + db.string() + "' run --backend model experiments/transpose/transpose.yaml", "CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("not a database"), std::string::npos) << r.err;
  EXPECT_EQ(bb::test::slurp(db), before);
}
