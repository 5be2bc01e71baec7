// `run --lines` and `--lines-for` on the host: which configurations a dry run marks for per-line
// collection, and the combinations refused before anything runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "cli_runner.hpp"

using bb::test::run_cli;

namespace {

long marked(const std::string& out) {
  long n = 0;
  for (std::size_t at = out.find("[lines]"); at != std::string::npos; at = out.find("[lines]", at + 1)) ++n;
  return n;
}

} // namespace

// Each --lines-for takes one pattern, so the experiment file after it stays an input.
TEST(cli_lines_run, dry_run_marks_the_configurations_lines_for_selects) {
  const auto r = run_cli("run --dry-run --lines-for naive --lines-for 'n=8192' experiments/transpose/transpose.yaml",
                         "CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 9) << r.out;
  // naive at three sizes, padded and swizzled at n = 8192.
  EXPECT_EQ(marked(r.out), 5) << r.out;
  EXPECT_NE(r.out.find("transpose/naive block_rows=8 n=1024 tile=32 type=float  [lines]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("transpose/padded block_rows=8 n=1024 tile=32 type=float\n"), std::string::npos) << r.out;
}

TEST(cli_lines_run, lines_alone_marks_every_configuration_and_no_flag_marks_none) {
  const auto all = run_cli("run --dry-run --lines experiments/transpose/transpose.yaml", "CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(marked(all.out), 9) << all.out;
  const auto none = run_cli("run --dry-run experiments/transpose/transpose.yaml", "CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(marked(none.out), 0) << none.out;
}

TEST(cli_lines_run, lines_with_the_model_is_refused_as_usage) {
  bb::test::temp_dir tmp;
  const auto r = run_cli("--db '" + (tmp.path / "m.sqlite").string() +
                             "' run --lines --backend model experiments/transpose/transpose.yaml",
                         "CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--lines measures each instruction on a GPU; it cannot be combined with --backend model"),
            std::string::npos)
      << r.err;
}

// `lines:` in the file selects as --lines-for does; --lines on the command line adds to it.
TEST(cli_lines_run, the_files_lines_key_marks_what_it_selects) {
  const auto file = std::string(BB_TEST_DATA) + "/lines/lines_key.yaml";
  const auto r = run_cli("run --dry-run '" + file + "'", "CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(marked(r.out), 2) << r.out;
  EXPECT_NE(r.out.find("transpose/naive block_rows=8 n=4096 tile=32 type=float  [lines]"), std::string::npos) << r.out;
  const auto more = run_cli("run --dry-run --lines-for 'n=4096' '" + file + "'", "CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(marked(more.out), 3) << more.out;
  const auto model = run_cli("run --dry-run --backend model '" + file + "'", "CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(marked(model.out), 0) << model.out;
}
