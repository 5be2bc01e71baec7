// The transpose signature measured through the CUPTI range profiler: the unpadded tile's column
// reads take 32 wavefronts per request, the padded and swizzled tiles one.
#include <gtest/gtest.h>

#include "runner/common/error.hpp"
#include "runner/common/metrics.hpp"
#include "gpu_test_util.hpp"
#include "runner/launch/device.hpp"
#include "runner/launch/device_memory.hpp"
#include "runner/launch/executor.hpp"
#include "runner/registry/registry.hpp"

namespace {

struct signature {
  double load_wf_per_req;
  double store_wf_per_req;
  double load_conflicts_per_req;
  double load_requests;
};

bb::profile::session& transpose_counters() {
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
  const auto r = bb::launch::execute(*v, {{"n", n}}, 123, o, &transpose_counters());
  EXPECT_EQ(r.status, bb::config_status::ok) << r.reason;
  EXPECT_EQ(r.ranges.size(), 2u);
  EXPECT_EQ(r.samples_ns.size(), 3u);
  const auto d = bb::metrics::derive(r.ranges.at(0), r.smem_access_bytes);
  return {d.at("load_wavefronts_per_request"), d.at("store_wavefronts_per_request"), d.at("load_conflicts_per_request"),
          d.at("load_requests")};
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

// A group profiles its members in one CUPTI session: each member must get its own ranges, in the
// order added, with the same requests and wavefronts it reads when profiled alone; a member that
// fails verification or is refused takes no range and does not shift the others.
TEST(gpu_counters, a_group_gives_each_member_its_own_counts) {
  BB_REQUIRE_GPU();
  const auto* transpose_naive = bb::registry::instance().find_variant("transpose", "naive");
  const auto* transpose_padded = bb::registry::instance().find_variant("transpose", "padded");
  ASSERT_NE(transpose_naive, nullptr);
  ASSERT_NE(transpose_padded, nullptr);
  bb::launch::exec_options o;
  o.passes.timing = false; // counters only
  bb::launch::group g(o, &transpose_counters());
  g.add(10, *transpose_naive, {{"n", 1024}}, 1, "group/naive-1024");
  g.add(11, *transpose_padded, {{"n", 2048}}, 1, "group/padded-2048");
  g.add(12, *transpose_naive, {{"n", 0}}, 1, "group/refused");
  g.add(13, *transpose_padded, {{"n", 512}}, 1, "group/padded-512");
  EXPECT_FALSE(g.full());
  const auto done = g.finish();
  ASSERT_EQ(done.size(), 4u);
  EXPECT_TRUE(g.empty());
  const std::size_t tags[] = {10, 11, 12, 13};
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(done[i].tag, tags[i]);
  EXPECT_EQ(done[2].result.status, bb::config_status::unsupported);
  EXPECT_TRUE(done[2].result.ranges.empty());
  // n*n/32 load and store requests; naive reads 32 wavefronts per request, padded 1.
  const struct {
    std::size_t index;
    double requests, load_wf_per_req;
  } want[] = {{0, 1024.0 * 1024 / 32, 32}, {1, 2048.0 * 2048 / 32, 1}, {3, 512.0 * 512 / 32, 1}};
  for (const auto& w : want) {
    const auto& r = done[w.index].result;
    ASSERT_EQ(r.status, bb::config_status::ok) << r.reason;
    ASSERT_EQ(r.ranges.size(), 1u);
    const auto d = bb::metrics::derive(r.ranges.at(0), r.smem_access_bytes);
    EXPECT_EQ(d.at("load_requests"), w.requests) << w.index;
    EXPECT_EQ(d.at("store_requests"), w.requests) << w.index;
    EXPECT_NEAR(d.at("load_wavefronts_per_request"), w.load_wf_per_req, 0.5) << w.index;
    EXPECT_GT(r.counter_ms, 0) << w.index;
    EXPECT_GT(r.device_used_bytes, 0u) << w.index;
  }
  // Alone, the first member reads the same requests as in the group, and the same wavefronts but
  // for arbitration noise (one in 1048576 seen on an H200; Nsight Compute's own runs differ so).
  const auto alone = bb::launch::execute(*transpose_naive, {{"n", 1024}}, 1, o, &transpose_counters());
  ASSERT_EQ(alone.status, bb::config_status::ok) << alone.reason;
  const auto a = bb::metrics::derive(alone.ranges.at(0), alone.smem_access_bytes);
  const auto b = bb::metrics::derive(done[0].result.ranges.at(0), done[0].result.smem_access_bytes);
  EXPECT_EQ(a.at("load_requests"), b.at("load_requests"));
  EXPECT_NEAR(a.at("load_wavefronts"), b.at("load_wavefronts"), 1e-4 * a.at("load_wavefronts"));
  EXPECT_NEAR(a.at("store_wavefronts"), b.at("store_wavefronts"), 1e-4 * a.at("store_wavefronts"));
}

// Without the shared session (cache control once or none, no counters) every configuration is a
// group of its own; a group also closes at its member limit.
TEST(gpu_counters, groups_close_when_they_cannot_share_a_session) {
  BB_REQUIRE_GPU();
  const auto* v = bb::registry::instance().find_variant("transpose", "padded");
  ASSERT_NE(v, nullptr);
  bb::launch::exec_options o;
  o.passes.timing = false;
  o.cache_control = bb::launch::cache_control::once;
  bb::launch::group once(o, &transpose_counters());
  once.add(0, *v, {{"n", 256}}, 1, "group/once");
  EXPECT_TRUE(once.full());
  ASSERT_EQ(once.finish().at(0).result.ranges.size(), 1u);
  o.cache_control = bb::launch::cache_control::all;
  bb::launch::group none(o, nullptr);
  none.add(0, *v, {{"n", 256}}, 1, "group/no-counters");
  EXPECT_TRUE(none.full());
  // One launch per member: the group is full at k_group_ranges members.
  bb::launch::group shared(o, &transpose_counters());
  const std::size_t members = bb::launch::group::k_group_ranges;
  for (std::size_t i = 0; i < members; ++i) {
    EXPECT_FALSE(shared.full()) << i;
    shared.add(i, *v, {{"n", 64}}, 1, "group/member");
  }
  EXPECT_TRUE(shared.full());
  const auto done = shared.finish();
  ASSERT_EQ(done.size(), members);
  for (const auto& f : done) EXPECT_EQ(f.result.ranges.size(), 1u) << f.tag;
  // Four launches per member: every range still comes back, in order.
  o.counter_launches = 4;
  bb::launch::group longer(o, &transpose_counters());
  std::size_t added = 0;
  for (; !longer.full(); ++added)
    longer.add(added, *v, {{"n", 64 + 32 * static_cast<int>(added)}}, 1, "group/four-launches");
  EXPECT_EQ(added, bb::launch::group::k_group_ranges / 4);
  const auto four = longer.finish();
  ASSERT_EQ(four.size(), added);
  for (const auto& f : four) {
    ASSERT_EQ(f.result.ranges.size(), 4u) << f.tag << " " << f.result.reason;
    const double n = 64 + 32 * static_cast<double>(f.tag);
    for (const auto& range : f.result.ranges)
      EXPECT_EQ(bb::metrics::derive(range, 4).at("load_requests"), n * n / 32) << f.tag;
  }
}

// The timing samples are split evenly over the placements, in order, each instance with its own
// buffers; the buffers of every instance are released with the group.
TEST(gpu_timing, samples_are_split_over_the_placements) {
  BB_REQUIRE_GPU();
  bb::launch::open_device(0);
  const auto* v = bb::registry::instance().find_variant("transpose", "padded");
  ASSERT_NE(v, nullptr);
  bb::launch::exec_options o;
  o.warmup = 1;
  o.samples = 7;
  o.placements = 1; // first, so that the kernel's module is loaded before memory is compared
  EXPECT_EQ(bb::launch::execute(*v, {{"n", 2048}}, 1, o, nullptr).sample_placement, (std::vector<int>(7, 0)));
  o.placements = 3;
  // Memory free beside the buffer pool's (launch/device_memory.hpp): what the pool keeps mapped
  // for the next configuration is not held by this one.
  const auto available = [] {
    bb::launch::device_memory_use now;
    EXPECT_TRUE(bb::launch::read_device_memory(now));
    return now.available();
  };
  const std::size_t free_before = available();
  const auto r = bb::launch::execute(*v, {{"n", 2048}}, 1, o, nullptr);
  ASSERT_EQ(r.status, bb::config_status::ok) << r.reason;
  EXPECT_EQ(r.sample_placement, (std::vector<int>{0, 0, 1, 1, 2, 2, 2}));
  ASSERT_EQ(r.samples_ns.size(), 7u);
  for (const double ns : r.samples_ns) EXPECT_GT(ns, 0);
  EXPECT_EQ(available(), free_before); // 3 x 32 MiB of buffers held while timing, none kept
}
