// `bankbench run` compiles a sweep's distinct kernels before its GPU phase: a kernel that does not
// compile fails its own configurations only, with its log printed once; the others run from the
// cache the phase filled.
#include <filesystem>
#include <string>
#include <vector>

#include "../cli/cli_db.hpp"
#include "../unit/occurrences.hpp"
#include "gpu_test_util.hpp"

namespace {

using bb::test::occurrences;
using bb::test::query_column;
using bb::test::run_cli;
using bb::test::temp_dir;

// Two good kernels and a broken one over three sizes.
const std::string k_mixed = std::string(BB_TEST_DATA) + "/source/mixed";

TEST(gpu_source_compile_phase, a_broken_kernel_fails_its_configurations_only_and_is_logged_once) {
  BB_REQUIRE_GPU();
  temp_dir tmp;
  const std::string db = (tmp.path / "r.sqlite").string();
  const std::string cache = "BB_CACHE_DIR='" + (tmp.path / "cache").string() + "'";
  const auto r = run_cli("--db '" + db + "' run --samples 3 -j 2 '" + k_mixed + "/mixed.yaml'", cache);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const std::string error = k_mixed + "/broken.cu" + ":3: error: identifier \"undeclared_value\" is undefined";
  EXPECT_EQ(occurrences(r.err, error), 1u) << r.err;
  EXPECT_NE(r.err.find("3 kernels for sm_"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(": 2 compiled, 0 from the cache, 1 failed"), std::string::npos) << r.err;
  EXPECT_EQ(occurrences(r.err, "kernel 'broken' does not compile for sm_"), 4u) << r.err; // the log, and 3 lines
  EXPECT_EQ(occurrences(r.err, "(the log is above)"), 3u) << r.err;
  EXPECT_EQ(query_column(db, "SELECT variant || ' ' || status FROM configurations ORDER BY seq"),
            (std::vector<std::string>{"source/twice unverified", "source/twice unverified", "source/twice unverified",
                                      "source/thrice unverified", "source/thrice unverified",
                                      "source/thrice unverified", "source/bad failed", "source/bad failed",
                                      "source/bad failed"}));
  // The whole log is stored with each configuration it cost.
  EXPECT_EQ(query_column(db, "SELECT count(*) FROM configurations WHERE status = 'failed' AND reason LIKE '%" + error +
                                 "%'"),
            std::vector<std::string>{"3"});
  // The phase's compile time goes to the first configuration of each kernel; the rest are cache hits.
  EXPECT_EQ(query_column(db, "SELECT seq FROM configurations WHERE compile_ms > 0 ORDER BY seq"),
            (std::vector<std::string>{"0", "3"}));

  // Again: every good kernel from the cache, quietly; the broken one compiled again and logged once.
  const auto again = run_cli("--db '" + db + "' run --samples 3 '" + k_mixed + "/mixed.yaml'", cache);
  EXPECT_EQ(again.exit_code, 1) << again.err;
  EXPECT_EQ(occurrences(again.err, error), 1u) << again.err;
  EXPECT_NE(again.err.find(": 0 compiled, 2 from the cache, 1 failed"), std::string::npos) << again.err;
}

} // namespace
