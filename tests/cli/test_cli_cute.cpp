// The CuTe experiment (experiments/cute): skipped with a note, exit 0, where CUTLASS is not found
// (validate, run, a dry run, the bank model, which compiles source kernels to run their PTX);
// compiled by validate where it is.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli_db.hpp"
#include "cutlass_for_tests.hpp"

namespace {

using bb::test::run_cli;

const std::string k_note_unset =
    "CUTLASS not found: CUTLASS_DIR is not set and no include: folder holds cute/tensor.hpp; point CUTLASS_DIR "
    "at a CUTLASS checkout or release (its include/ folder is searched: CUTLASS_DIR=$HOME/cutlass), or list "
    "CUTLASS's include folder under source: include:";

TEST(cli_cute, validate_skips_the_kernels_with_a_note_where_cutlass_is_not_found) {
  const auto r = run_cli("validate experiments/cute", "CUTLASS_DIR=/nowhere");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "experiments/cute/ldmatrix.yaml: ok (cute_ldmatrix, 5 configurations, 4 expectations, kernels "
                   "skipped: CUTLASS not found: CUTLASS_DIR is '/nowhere', which holds neither include/cute/tensor.hpp "
                   "nor cute/tensor.hpp; point CUTLASS_DIR at a CUTLASS checkout or release (its include/ folder is "
                   "searched: CUTLASS_DIR=$HOME/cutlass), or list CUTLASS's include folder under source: include:)\n");
  // Every other experiment of the suite is validated as before, and the whole suite passes.
  const auto all = run_cli("validate --no-compile", "CUTLASS_DIR=");
  EXPECT_EQ(all.exit_code, 0) << all.err;
  EXPECT_NE(all.out.find("experiments/cute/ldmatrix.yaml: ok (cute_ldmatrix, 5 configurations, 4 expectations)"),
            std::string::npos)
      << all.out;
}

TEST(cli_cute, run_skips_the_experiment_with_a_note_and_exit_0) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "r.sqlite").string();
  // No GPU is needed to skip: the run stops before opening one.
  const auto r = run_cli("--db '" + db + "' run experiments/cute", "CUTLASS_DIR= CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "bankbench: warning: experiments/cute/ldmatrix.yaml: skipped: " + k_note_unset + "\n");
  EXPECT_FALSE(std::filesystem::exists(db));
  const auto dry = run_cli("run --dry-run experiments/cute experiments/source/histogram.yaml", "CUTLASS_DIR=");
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_EQ(dry.out.find("cute"), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("experiments/source/histogram.yaml: source/one_copy n=4194304"), std::string::npos) << dry.out;
  EXPECT_NE(dry.err.find("ldmatrix.yaml: skipped: CUTLASS not found"), std::string::npos) << dry.err;
  // The rest of a run still needs its GPU: only the experiment without CUTLASS is skipped.
  const auto rest = run_cli("--db '" + db + "' run experiments/cute experiments/source/histogram.yaml",
                            "CUTLASS_DIR= CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(rest.exit_code, 3) << rest.err;
}

TEST(cli_cute, the_bank_model_skips_the_experiment_as_a_run_does) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "m.sqlite").string();
  const auto r = run_cli("--db '" + db + "' run --backend model experiments/cute", "CUTLASS_DIR=");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "bankbench: warning: experiments/cute/ldmatrix.yaml: skipped: " + k_note_unset + "\n");
  EXPECT_FALSE(std::filesystem::exists(db));
}

TEST(cli_cute, validate_compiles_every_cute_kernel_where_cutlass_is_found) {
  const std::string cutlass = bb::test::cutlass_for_tests();
  if (cutlass.empty()) GTEST_SKIP() << bb::test::k_no_cutlass;
  bb::test::temp_dir cache;
  const auto r = run_cli("validate experiments/cute",
                         "BB_CACHE_DIR='" + cache.path.string() + "' CUTLASS_DIR='" + cutlass + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // copy (cuda_fp16.h) and the four layouts of tile_roundtrip, each with CuTe's headers.
  EXPECT_NE(r.out.find("experiments/cute/ldmatrix.yaml: ok (cute_ldmatrix, 5 configurations, 4 expectations, 5 "
                       "kernel(s) compiled for sm_90 (0 from the cache"),
            std::string::npos)
      << r.out;
}

} // namespace
