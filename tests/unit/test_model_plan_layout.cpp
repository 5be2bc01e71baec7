// layout without a GPU: an array of 16-byte structs read field by field is 4-way under the bank
// model, read whole as float4 it takes the ideal 4 wavefronts, a structure of arrays 1.
#include <gtest/gtest.h>

#include "plan_test_util.hpp"

namespace {

using bb::test::per_request;
using bb::test::predict_of;

TEST(layout_host, signatures) {
  const auto aos = predict_of("layout", "aos", {{"n", 1024}});
  EXPECT_EQ(aos.load.requests, 3u * 1024 / 32); // x, y and z: one request each per warp
  EXPECT_DOUBLE_EQ(per_request(aos.load), 4.0);
  EXPECT_EQ(aos.load.conflicts, 3u * 32 * 3);
  EXPECT_DOUBLE_EQ(per_request(aos.store), 4.0); // whole structs, 16 bytes per lane
  EXPECT_EQ(aos.store.conflicts, 0u);

  const auto whole = predict_of("layout", "aos_float4", {{"n", 1024}});
  EXPECT_EQ(whole.load.requests, 1024u / 32);
  EXPECT_DOUBLE_EQ(per_request(whole.load), 4.0);
  EXPECT_EQ(whole.load.conflicts, 0u);

  const auto soa = predict_of("layout", "soa", {{"n", 1024}});
  EXPECT_EQ(soa.load.requests, 3u * 1024 / 32);
  EXPECT_DOUBLE_EQ(per_request(soa.load), 1.0);
  EXPECT_DOUBLE_EQ(per_request(soa.store), 1.0);
}

TEST(layout_host, a_partial_block_leaves_its_lanes_past_n_out) {
  // n = 100: one block, warps 0-2 full, warp 3 with 4 lanes, warps 4-7 issue nothing.
  const auto plan = bb::test::plan_of("layout", "aos", {{"n", 100}});
  const auto p = bb::model::predict(plan);
  EXPECT_EQ(p.load.requests, 4u * 3);
  bool saw_partial = false;
  for (const auto& e : plan.entries)
    if (e.access.active == 0xfu) saw_partial = true;
  EXPECT_TRUE(saw_partial);
  // 4 lanes of 16-byte structs read field by field: words 0, 4, 8, 12 in four banks.
  EXPECT_EQ(p.load.wavefronts, 3u * 3 * 4 + 3 * 1);
}

TEST(layout_host, bad_parameters_are_refused_before_any_allocation) {
  for (const char* name : {"aos", "aos_float4", "soa"}) {
    const auto& v = bb::test::variant_of("layout", name);
    EXPECT_THROW(v.make({{"n", 0}}, 1), bb::unsupported_parameter) << name;
    EXPECT_THROW(v.plan({{"n", 1ll << 27}}), bb::unsupported_parameter) << name;
  }
}

} // namespace
