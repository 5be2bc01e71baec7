// `bankbench bankmap`: the committed examples in docs/bankmap/ are exactly what the tool prints
// (scripts/make-bankmap-examples.sh regenerates them), and bad options are usage errors.
#include <gtest/gtest.h>

#include "cli_runner.hpp"

using bb::test::run_cli;
using bb::test::slurp;

namespace {

const std::string k_docs = std::string(BB_SOURCE_DIR) + "/docs/bankmap/";

void expect_example(const std::string& name, const std::string& options) {
  bb::test::temp_dir tmp;
  const auto svg = (tmp.path / (name + ".svg")).string();
  const auto r = run_cli("-q bankmap " + options + " --svg '" + svg + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, slurp(k_docs + name + ".txt")) << "regenerate with scripts/make-bankmap-examples.sh";
  EXPECT_EQ(slurp(svg), slurp(k_docs + name + ".svg")) << "regenerate with scripts/make-bankmap-examples.sh";
}

} // namespace

TEST(cli_bankmap, naive_tile_matches_the_docs) { expect_example("naive", "--rows 32 --cols 32 --type float --col 0"); }
TEST(cli_bankmap, padded_tile_matches_the_docs) {
  expect_example("padded", "--rows 32 --cols 32 --type float --pad 1 --col 0");
}
TEST(cli_bankmap, swizzled_tile_matches_the_docs) {
  expect_example("swizzled", "--rows 32 --cols 32 --type float --swizzle 32 --col 0");
}
TEST(cli_bankmap, two_word_padding_matches_the_docs) {
  expect_example("pad2", "--rows 32 --cols 32 --type float --pad 2 --col 0");
}

TEST(cli_bankmap, a_variant_plan_shows_its_most_conflicted_request) {
  const auto r = run_cli("bankmap --variant transpose/naive --params n=1024");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, slurp(k_docs + "transpose-naive-plan.txt"));
  EXPECT_EQ(r.out.rfind("transpose/naive {\"block_rows\":8,\"n\":1024,\"tile\":32,\"type\":\"float\"}: request 1 of 64 "
                        "(load, issued 1024 times per launch) on float tile[32][32]\n",
                        0),
            0u)
      << r.out;
  const auto padded = run_cli("bankmap --variant transpose/padded --params n=1024");
  EXPECT_NE(padded.out.find("conflict-free: 1 wavefront, ideal 1\n"), std::string::npos) << padded.out;
}

TEST(cli_bankmap, wide_elements_are_served_in_phases) {
  const auto r = run_cli("bankmap --rows 8 --cols 8 --type float4 --col 0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("load, 16 B per lane, 8 active lanes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("   0     0     0      0   0-3\n   1     1     0    128   0-3\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("8-way bank conflict: 8 wavefronts, ideal 1"), std::string::npos) << r.out;
  const auto d = run_cli("bankmap --type double --stride 1");
  EXPECT_NE(d.out.find("banks, lanes 0-15:"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("banks, lanes 16-31:"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("conflict-free: 2 wavefronts, ideal 2"), std::string::npos) << d.out;
}

TEST(cli_bankmap, impossible_requests_are_usage_errors) {
  const auto bytes = run_cli("bankmap --bytes 12");
  EXPECT_EQ(bytes.exit_code, 2);
  EXPECT_NE(bytes.err.find("an element of 12 B is not one shared-memory access"), std::string::npos) << bytes.err;
  const auto swz = run_cli("bankmap --swizzle 3");
  EXPECT_EQ(swz.exit_code, 2);
  EXPECT_NE(swz.err.find("--swizzle must be a power of two"), std::string::npos) << swz.err;
  const auto both = run_cli("bankmap --row 1 --col 2");
  EXPECT_EQ(both.exit_code, 2) << both.err;
  const auto variant = run_cli("bankmap --variant transpose/nope");
  EXPECT_EQ(variant.exit_code, 2);
  EXPECT_NE(variant.err.find("no variant 'transpose/nope'"), std::string::npos) << variant.err;
  const auto param = run_cli("bankmap --variant transpose/naive --params m=3");
  EXPECT_EQ(param.exit_code, 2);
  EXPECT_NE(param.err.find("family transpose has no parameter 'm'"), std::string::npos) << param.err;
}

// CuTe Swizzle<3,4,3> (TMA's 128B swizzle) on a float4 column of 128-byte rows: the 8 rows' chunk
// 0 moves to chunk r, so the 8-way column becomes one wavefront.
TEST(cli_bankmap, cute_swizzle_spreads_a_16_byte_column) {
  const auto plain = run_cli("bankmap --rows 8 --cols 8 --type float4 --col 0");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_NE(plain.out.find("8-way bank conflict: 8 wavefronts, ideal 1"), std::string::npos) << plain.out;
  const auto swz = run_cli("bankmap --rows 8 --cols 8 --type float4 --cute-swizzle 3,4,3 --col 0");
  ASSERT_EQ(swz.exit_code, 0) << swz.err;
  EXPECT_NE(swz.out.find("float4 tile[8][8], Swizzle<3,4,3>"), std::string::npos) << swz.out;
  EXPECT_NE(swz.out.find("conflict-free: 1 wavefront, ideal 1"), std::string::npos) << swz.out;
  const auto both = run_cli("bankmap --swizzle 32 --cute-swizzle 3,4,3");
  EXPECT_EQ(both.exit_code, 2);
  const auto bad = run_cli("bankmap --cute-swizzle 3,4,1");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--cute-swizzle B,M,S needs"), std::string::npos) << bad.err;
}

// A variant's ldmatrix and atomic requests are drawn as such.
TEST(cli_bankmap, matrix_and_atomic_requests_name_their_kind) {
  const auto ld = run_cli("bankmap --variant ldmatrix/unpadded");
  ASSERT_EQ(ld.exit_code, 0) << ld.err;
  EXPECT_NE(ld.out.find("ldmatrix, 16 B per lane, 32 active lanes"), std::string::npos) << ld.out;
  EXPECT_NE(ld.out.find("8-way bank conflict: 32 wavefronts, ideal 4"), std::string::npos) << ld.out;
  const auto atom = run_cli("bankmap --variant histogram/one_bank --request 40");
  ASSERT_EQ(atom.exit_code, 0) << atom.err;
  EXPECT_NE(atom.out.find("atomic, 4 B per lane"), std::string::npos) << atom.out;
  EXPECT_NE(atom.out.find("32-way bank conflict: 32 wavefronts, ideal 1"), std::string::npos) << atom.out;
}

// A source variant's request, from its kernel's PTX: no access plan needed, no GPU.
TEST(cli_bankmap, a_source_variants_request_comes_from_its_code) {
  bb::test::temp_dir cache;
  const std::string env = "BB_CACHE_DIR='" + cache.path.string() + "'";
  const auto r = run_cli("bankmap --experiment tests/data/emulate/model.yaml --variant unpadded --params n=64", env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("model_code/unpadded n=64: request "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tests/data/emulate/kernels.cu:8 st.shared.f32, issued 1 time by block (0, 0, 0))"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("32-way bank conflict: 32 wavefronts, ideal 1"), std::string::npos) << r.out;
  const auto padded = run_cli("bankmap --experiment tests/data/emulate/model.yaml --variant padded", env);
  ASSERT_EQ(padded.exit_code, 0) << padded.err;
  EXPECT_NE(padded.out.find("conflict-free: 1 wavefront, ideal 1"), std::string::npos) << padded.out;

  const auto none = run_cli("bankmap --experiment tests/data/emulate/model.yaml --variant unpaded", env);
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("tests/data/emulate/model.yaml has no source variant 'unpaded' (its source variants: "
                          "padded, unpadded, buggy, pmevent, uneven, missing_scalar)"),
            std::string::npos)
      << none.err;
  const auto size = run_cli("bankmap --experiment tests/data/emulate/model.yaml --variant unpadded --params n=65", env);
  EXPECT_EQ(size.exit_code, 2);
  EXPECT_NE(size.err.find("variant 'unpadded' has no configuration with n=65; it has: n=64"), std::string::npos)
      << size.err;
  const auto unfollowed = run_cli("bankmap --experiment tests/data/emulate/model.yaml --variant pmevent --params n=64",
                                  env);
  EXPECT_EQ(unfollowed.exit_code, 2);
  EXPECT_NE(unfollowed.err.find("the bank model cannot follow this kernel: "), std::string::npos) << unfollowed.err;
  EXPECT_NE(unfollowed.err.find("unsupported instruction 'pmevent'"), std::string::npos) << unfollowed.err;
}
