// The transpose signature measured through the CUPTI range profiler: the unpadded tile's column
// reads take 32 wavefronts per request, the padded and swizzled tiles one.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "common/metrics.hpp"
#include "gpu_test_util.hpp"
#include "launch/device.hpp"
#include "launch/executor.hpp"
#include "registry/registry.hpp"

namespace {

struct signature {
  double load_wf_per_req;
  double store_wf_per_req;
  double load_conflicts_per_req;
  double load_requests;
};

bb::profile::session& counters() {
  static auto s = [] {
    bb::launch::open_device(0);
    const auto* set = bb::metrics::find_set("bank_conflicts");
    return bb::profile::session::create(0, set->metrics);
  }();
  return *s;
}

signature measure(const std::string& variant, int n) {
  const auto* v = bb::registry::instance().find_variant("transpose", variant);
  bb::launch::exec_options o;
  o.warmup = 1;
  o.samples = 3;
  o.counter_launches = 2;
  o.nvtx_name = "test/" + variant;
  const auto r = bb::launch::execute(*v, {{"n", n}}, 123, o, &counters());
  EXPECT_EQ(r.status, "ok") << r.reason;
  EXPECT_EQ(r.ranges.size(), 2u);
  EXPECT_EQ(r.samples_ns.size(), 3u);
  const auto d = bb::metrics::derive(r.ranges.at(0), r.smem_access_bytes);
  return {d.at("load_wavefronts_per_request"), d.at("store_wavefronts_per_request"),
          d.at("load_conflicts_per_request"), d.at("load_requests")};
}

} // namespace

TEST(gpu_counters, naive_column_reads_are_32_way) {
  BB_REQUIRE_GPU();
  const auto s = measure("naive", 1024);
  // 1024x1024 floats: one load instruction per warp per tile row pass = n*n/32 requests.
  EXPECT_NEAR(s.load_requests, 1024.0 * 1024 / 32, 1024.0 * 1024 / 32 * 0.01);
  EXPECT_GE(s.load_wf_per_req, 31.0);
  EXPECT_LE(s.load_wf_per_req, 33.0);
  EXPECT_GE(s.load_conflicts_per_req, 30.0);
  EXPECT_NEAR(s.store_wf_per_req, 1.0, 0.05);
}

TEST(gpu_counters, padded_and_swizzled_tiles_are_conflict_free) {
  BB_REQUIRE_GPU();
  for (const char* v : {"padded", "swizzled"}) {
    const auto s = measure(v, 1024);
    // The counter adds a few hundred arbitration losses per 32768 requests (see the experiment file).
    EXPECT_NEAR(s.load_wf_per_req, 1.0, 0.02) << v;
    EXPECT_LT(s.load_conflicts_per_req, 0.02) << v;
    EXPECT_NEAR(s.store_wf_per_req, 1.0, 0.05) << v;
  }
}

TEST(gpu_counters, unknown_metric_is_refused_naming_the_chip) {
  BB_REQUIRE_GPU();
  bb::launch::open_device(0);
  try {
    bb::profile::session::create(0, {"smsp__not_a_real_metric.sum"});
    FAIL() << "expected an error";
  } catch (const bb::usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("smsp__not_a_real_metric.sum"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not known on chip G"), std::string::npos) << e.what();
  }
}
