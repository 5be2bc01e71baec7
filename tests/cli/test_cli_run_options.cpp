// `run`'s options for the Nsight Compute comparison: checked before anything is measured.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli_runner.hpp"

using bb::test::run_cli;

TEST(cli_run_options, launch_once_with_the_model_is_a_usage_error_and_writes_nothing) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "r.sqlite").string();
  const auto r = run_cli("--db '" + db + "' run --launch-once --backend model experiments/transpose/transpose.yaml",
                         "CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--launch-once measures on a GPU; it cannot be combined with --backend model"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(db));
}

TEST(cli_run_options, cache_control_takes_all_or_none) {
  const auto r = run_cli("run --cache-control some experiments/transpose/transpose.yaml", "CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--cache-control"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("some"), std::string::npos) << r.err;
}

TEST(cli_run_options, allocator_takes_pool_or_driver) {
  const auto r = run_cli("run --allocator heap experiments/transpose/transpose.yaml", "CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--allocator"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("heap"), std::string::npos) << r.err;
  const auto help = run_cli("run --help");
  EXPECT_NE(help.out.find("{pool,driver}"), std::string::npos) << help.out;
}

TEST(cli_run_options, min_sample_us_is_at_least_one_microsecond) {
  const auto r = run_cli("run --min-sample-us 0 experiments/transpose/transpose.yaml", "CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--min-sample-us"), std::string::npos) << r.err;
  const auto help = run_cli("run --help");
  EXPECT_NE(help.out.find("--min-sample-us"), std::string::npos) << help.out;
}

TEST(cli_run_options, help_explains_the_nsight_compute_target_and_cache_control) {
  const auto r = run_cli("run --help");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("NVTX range \"bankbench-measure\""), std::string::npos) << r.out;
  // CLI11 versions print the choices and default differently; both name the three values.
  EXPECT_NE(r.out.find("--cache-control"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("{all,once,none}"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("as Nsight Compute does by default"), std::string::npos) << r.out;
}

TEST(cli_run_options, bb_git_commit_names_the_commit_of_a_copied_checkout) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "m.sqlite").string();
  const auto run = run_cli("--db '" + db + "' -q run --backend model experiments/transpose/transpose.yaml",
                           "CUDA_VISIBLE_DEVICES= BB_GIT_COMMIT=0123456789abcdef0123456789abcdef01234567");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto show = run_cli("--db '" + db + "' show");
  EXPECT_NE(show.out.find("commit:   0123456789abcdef0123456789abcdef01234567, fingerprint "), std::string::npos)
      << show.out;
}
