// The CuTe experiment on the GPU: every layout's tile comes back equal to its input, and the
// ldmatrix copy atom's wavefronts per request are the bank math's (32, 4, 4 and 8), the 16-byte
// stores' the ideal 4, as its expectations say. Skipped without a GPU or without CUTLASS.
#include <cstdlib>
#include <string>
#include <vector>

#include "../cli/cli_db.hpp"
#include "../cli/cutlass_for_tests.hpp"
#include "gpu_test_util.hpp"

namespace {

using bb::test::query_column;
using bb::test::run_cli;
using bb::test::temp_dir;

TEST(gpu_source_cute, ldmatrix_through_cute_layouts_meets_its_expectations) {
  BB_REQUIRE_GPU();
  const std::string cutlass = bb::test::cutlass_for_tests();
  if (cutlass.empty()) GTEST_SKIP() << bb::test::k_no_cutlass;
  temp_dir tmp;
  const std::string db = (tmp.path / "c.sqlite").string();
  const auto r = run_cli("--db '" + db + "' -q run --samples 3 experiments/cute",
                         "BB_CACHE_DIR='" + (tmp.path / "cache").string() + "' CUTLASS_DIR='" + cutlass + "'");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(query_column(db, "SELECT variant || ' ' || status FROM configurations ORDER BY seq"),
            (std::vector<std::string>{"cute/copy unverified", "cute/row_major ok", "cute/padded ok", "cute/swizzled ok",
                                      "cute/swizzled_elements ok"}));
  EXPECT_EQ(query_column(db, "SELECT count(*) FROM expectations WHERE passed = 0"), std::vector<std::string>{"0"});
  EXPECT_EQ(query_column(db, "SELECT count(*) FROM expectations"), std::vector<std::string>{"8"});
  // Rounded to whole wavefronts per request: the bank math of ldmatrix.yaml.
  EXPECT_EQ(query_column(db, "SELECT c.variant || ' ' || cast(round(avg(m.value)) AS int) FROM metrics m JOIN "
                             "configurations c ON c.id = m.configuration_id WHERE m.name = "
                             "'ldsm_wavefronts_per_request' AND m.derived = 1 GROUP BY c.id ORDER BY c.seq"),
            (std::vector<std::string>{"cute/row_major 32", "cute/padded 4", "cute/swizzled 4",
                                      "cute/swizzled_elements 8"}));
  EXPECT_EQ(query_column(db, "SELECT count(*) FROM results WHERE variant != 'cute/copy' AND "
                             "round(store_wavefronts_per_request) = 4"),
            std::vector<std::string>{"4"});
}

// Without CUTLASS the run skips the experiment and exits 0 on a GPU machine too.
TEST(gpu_source_cute, without_cutlass_the_run_skips_it_and_exits_0) {
  BB_REQUIRE_GPU();
  temp_dir tmp;
  const std::string db = (tmp.path / "n.sqlite").string();
  const auto r = run_cli("--db '" + db + "' run experiments/cute experiments/source/histogram.yaml",
                         "BB_CACHE_DIR='" + (tmp.path / "cache").string() + "' CUTLASS_DIR=/nowhere");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("experiments/cute/ldmatrix.yaml: skipped: CUTLASS not found: CUTLASS_DIR is '/nowhere'"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(query_column(db, "SELECT DISTINCT experiment_name FROM runs"),
            std::vector<std::string>{"source_histogram"});
}

} // namespace
