// float16 and bfloat16 buffers on the GPU: uniform inputs rounded on the host, __half and
// __nv_bfloat16 kernels compiled by NVRTC, outputs compared as values within the check's
// tolerance; without one, bit for bit, and the first mismatch is printed as numbers.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

#include "../cli/cli_db.hpp"
#include "gpu_test_util.hpp"

namespace {

using bb::test::query_column;
using bb::test::run_cli;
using bb::test::temp_dir;

TEST(gpu_source_sixteen_bit, half_and_bfloat16_outputs_pass_within_their_tolerance) {
  BB_REQUIRE_GPU();
  temp_dir tmp;
  const std::string db = (tmp.path / "s.sqlite").string();
  setenv("BB_CACHE_DIR", (tmp.path / "cache").c_str(), 1);
  const auto r = run_cli("--db '" + db +
                         "' -q run --samples 3 '" BB_SOURCE_DIR "/tests/data/source/validate/sixteen_bit.yaml'");
  unsetenv("BB_CACHE_DIR");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err; // half_exact: wrong_result, as intended
  const auto statuses = query_column(db, "SELECT variant || ' ' || status FROM configurations ORDER BY seq");
  const std::vector<std::string> want = {"source/half_in_float unverified", "source/half ok",
                                         "source/half_exact wrong_result", "source/bf16_in_float unverified",
                                         "source/bf16 ok"};
  EXPECT_EQ(statuses, want);
  // Seven roundings in __half against one: some sums differ in their last bits. The message gives
  // the two values (sums of 8 inputs in [-1, 1)), not the raw 16-bit patterns.
  const auto reason = query_column(db, "SELECT reason FROM configurations WHERE variant = 'source/half_exact'");
  ASSERT_EQ(reason.size(), 1u);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      reason[0], m, std::regex(R"(^(\d+) of 4096 elements wrong; first: out\[\d+\] = (\S+), expected (\S+)$)")))
      << reason[0];
  const double got = std::stod(m[2]), expected = std::stod(m[3]);
  EXPECT_LT(std::abs(got), 8.0) << reason[0];
  EXPECT_LT(std::abs(expected), 8.0) << reason[0];
  EXPECT_NE(got, expected);
  EXPECT_LE(std::abs(got - expected), 0.02 * std::max(1.0, std::abs(expected))) << reason[0];
  EXPECT_LT(std::stoi(m[1]), 4096);
}

} // namespace
