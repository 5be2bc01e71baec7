// `validate` runs each variant's own parameter checks on the host, so what the GPU would refuse is
// refused before any run, at the axis value that causes it.
#include <fstream>

#include <gtest/gtest.h>

#include "cli_runner.hpp"

using bb::test::run_cli;

namespace {
std::string write(const bb::test::temp_dir& tmp, const std::string& name, const std::string& text) {
  const auto path = (tmp.path / name).string();
  std::ofstream(path) << text;
  return path;
}
const std::string k_head =
    "name: t\ndescription: x\nfamily: transpose\nvariants: [naive, padded]\naxes:\n  n: [1024, 2048]\n";
} // namespace

TEST(cli_validate_params, a_tile_side_no_kernel_has_is_refused_at_its_value) {
  bb::test::temp_dir tmp;
  const auto file = write(tmp, "tile.yaml", k_head + "  tile: [16, 24]\nmetrics: bank_conflicts\n");
  const auto r = run_cli("validate '" + file + "'", "CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find(file + ":7:14: error: axes.tile[1]: the transpose kernels refuse this: tile = 24 is not one "
                              "of 16, 32, 64 (the run would store these configurations as unsupported; drop the "
                              "value, or leave the combination out with an `exclude:` entry)"),
            std::string::npos)
      << r.err;
  // four configurations refuse it for the same reason: one line
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(cli_validate_params, block_rows_above_the_tile_is_refused) {
  bb::test::temp_dir tmp;
  const auto file = write(tmp, "rows.yaml",
                          k_head + "  tile: [16, 32]\n  block_rows: [8, 32]\nmetrics: bank_conflicts\n");
  const auto r = run_cli("validate '" + file + "'", "CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find(file + ":8:19: error: axes.block_rows[1]: the transpose kernels refuse this: block_rows = 32 "
                              "exceeds the 16-row tile: use block_rows <= tile"),
            std::string::npos)
      << r.err;
}

TEST(cli_validate_params, the_same_values_pass_once_excluded) {
  bb::test::temp_dir tmp;
  const auto file = write(tmp, "ok.yaml",
                          k_head + "  tile: [16, 32]\n  block_rows: [8, 32]\nexclude:\n"
                                   "  - {tile: 16, block_rows: 32}\nmetrics: bank_conflicts\n");
  const auto r = run_cli("validate '" + file + "'", "CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("ok (t, 12 configurations"), std::string::npos) << r.out;
}
