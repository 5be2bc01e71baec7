// A file-size limit (`ulimit -f`) is a write error, not a kill by SIGXFSZ (exit 153, the run left
// `running`): the database's is exit 4 with the run marked interrupted and its resume command
// printed, an output file's is exit 6 with the file left as it was.
#include <gtest/gtest.h>

#include <fstream>

#include "cli_db.hpp"

namespace {

/// `args` under `ulimit -f blocks` (1 KiB blocks), from the source folder, without a GPU.
bb::test::cli_result limited(int blocks, const std::string& args, const std::filesystem::path& dir) {
  const auto err = dir / "err";
  const std::string cmd = "cd '" BB_SOURCE_DIR "' && (ulimit -f " + std::to_string(blocks) +
                          " && CUDA_VISIBLE_DEVICES= exec '" BB_BINARY "' " + args + ") >/dev/null 2>'" + err.string() +
                          "'";
  const int status = std::system(cmd.c_str());
  bb::test::cli_result r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = bb::test::slurp(err);
  return r;
}

} // namespace

TEST(cli_file_size_limit, a_run_past_the_limit_is_exit_4_and_marked_interrupted) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "x.sqlite").string();
  const auto first = bb::test::run_cli("-q --db '" + db + "' run --backend model experiments/transpose/transpose.yaml",
                                       "CUDA_VISIBLE_DEVICES=");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  // The sweep's rows pass the limit (400 blocks: 200 KiB under dash, 400 KiB under bash) in the WAL.
  const auto sweep = bb::test::sweep_experiment(tmp.path, "sweep", 400);
  const auto r = limited(400, "-q --db '" + db + "' run --backend model '" + sweep + "'", tmp.path);
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("run 2 stopped; what was stored before is kept; once the cause is fixed, resume with: "
                       "bankbench --db '" +
                       db + "' run --backend model --resume 2"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(bb::test::query_text(db, "SELECT status FROM runs WHERE id = 2"), "interrupted");
  // Without the limit the run completes from where it stopped.
  const auto resumed = bb::test::run_cli("-q --db '" + db + "' run --backend model --resume 2",
                                         "CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(bb::test::query_text(db, "SELECT count(*) FROM configurations WHERE run_id = 2"), "1200");
}

TEST(cli_file_size_limit, an_output_file_past_the_limit_is_exit_6_and_the_old_file_is_kept) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "x.sqlite").string();
  const auto run = bb::test::run_cli("-q --db '" + db + "' run --backend model experiments/transpose/transpose.yaml",
                                     "CUDA_VISIBLE_DEVICES=");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto file = tmp.path / "m.csv";
  std::ofstream(file) << "old\n";
  const auto r = limited(8, "--db '" + db + "' export -o '" + file.string() + "'", tmp.path);
  EXPECT_EQ(r.exit_code, 6) << r.err;
  EXPECT_NE(r.err.find(file.string() + ": write failed: File too large; the previous file, if any, is unchanged"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(bb::test::slurp(file), "old\n");
}
