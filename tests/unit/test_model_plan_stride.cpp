// stride without a GPU: the index function and accumulator the kernel and CPU reference share,
// and the access plans' signatures under the bank model (for 4-byte words, gcd(stride, 32)).
#include <numeric>

#include <gtest/gtest.h>

#include "plan_test_util.hpp"
#include "kernels/stride/pattern.hpp"

namespace {

using bb::test::per_request;
using bb::test::predict_of;

TEST(stride_host, element_index_groups_lanes_and_shifts_by_128_bytes) {
  using bb::stride::element_index;
  EXPECT_EQ(element_index(5, 0, 3, 1, 4), 15);
  EXPECT_EQ(element_index(5, 0, 3, 2, 4), 6); // lanes 4 and 5 share element 2 x 3
  EXPECT_EQ(element_index(31, 0, 64, 32, 4), 0);
  EXPECT_EQ(element_index(1, 1, 1, 1, 4), 1 + 32); // 128 bytes of 4-byte words
  EXPECT_EQ(element_index(1, 9, 1, 1, 16), 1 + 8); // load 9 shifts like load 1: 128 bytes of 16
  EXPECT_EQ(element_index(0, 7, 1, 1, 1), 7 * 128);
  EXPECT_EQ(bb::stride::array_elements(64, 1, 16), 31 * 64 + 7 * 8 + 1);
}

TEST(stride_host, mix_is_order_dependent) {
  using bb::stride::mix;
  EXPECT_EQ(mix(0, 5), 5u);
  EXPECT_EQ(mix(mix(0, 1), 2), 35u);
  EXPECT_NE(mix(mix(0, 1), 2), mix(mix(0, 2), 1));
  EXPECT_EQ(mix(0xffffffffu, 0), 0xffffffffu * 33u); // wraps, as on the GPU
}

TEST(stride_host, four_byte_strides_are_gcd_with_32_way) {
  for (int s = 1; s <= 64; ++s) {
    const auto p = predict_of("stride", "strided", {{"stride", s}, {"width", 4}});
    EXPECT_DOUBLE_EQ(per_request(p.load), std::gcd(s, 32)) << "stride " << s;
    EXPECT_EQ(p.store.conflicts, 0u) << "stride " << s;
  }
}

TEST(stride_host, narrow_and_wide_elements) {
  auto wf = [](const char* v, int s, int w) {
    return per_request(predict_of("stride", v, {{"stride", s}, {"width", w}}).load);
  };
  EXPECT_DOUBLE_EQ(wf("strided", 1, 1), 1);   // 32 bytes: 8 words
  EXPECT_DOUBLE_EQ(wf("strided", 4, 1), 1);   // one byte of each word
  EXPECT_DOUBLE_EQ(wf("strided", 5, 1), 2);   // 160 bytes wrap past bank 31
  EXPECT_DOUBLE_EQ(wf("strided", 64, 1), 16); // words 16 apart: banks 0 and 16
  EXPECT_DOUBLE_EQ(wf("strided", 2, 2), 1);
  EXPECT_DOUBLE_EQ(wf("strided", 64, 2), 32);
  EXPECT_DOUBLE_EQ(wf("strided", 1, 8), 2); // per half-warp: 1 each
  EXPECT_DOUBLE_EQ(wf("strided", 2, 8), 4);
  EXPECT_DOUBLE_EQ(wf("strided", 16, 8), 32);
  EXPECT_DOUBLE_EQ(wf("strided", 1, 16), 4); // per quarter-warp: 1 each
  EXPECT_DOUBLE_EQ(wf("strided", 3, 16), 4);
  EXPECT_DOUBLE_EQ(wf("strided", 8, 16), 32);
  EXPECT_DOUBLE_EQ(wf("multicast", 32, 4), 16); // 16 distinct words, one bank
  EXPECT_DOUBLE_EQ(wf("multicast", 2, 4), 1);
}

TEST(stride_host, broadcast_takes_the_ideal_at_every_width) {
  for (const int w : {1, 2, 4, 8, 16}) {
    const auto p = predict_of("stride", "broadcast", {{"width", w}});
    // Rules v2: every lane pair shares the one address, so 8-byte loads take the whole warp in one
    // wavefront and 16-byte loads one per half-warp (H200: 1 and 2, docs/bank-model.md).
    EXPECT_DOUBLE_EQ(per_request(p.load), w <= 8 ? 1 : 2) << w;
    EXPECT_EQ(p.load.conflicts, 0u) << w;
  }
}

TEST(stride_host, requests_per_launch) {
  const auto p = predict_of("stride", "strided", {{"stride", 3}, {"width", 8}, {"blocks", 2}, {"iters", 13}});
  EXPECT_EQ(p.load.requests, 2u * 8 * 13);
  const int elements = bb::stride::array_elements(3, 1, 8);
  EXPECT_EQ(p.store.requests, 2u * static_cast<unsigned>((elements + 31) / 32));
}

TEST(stride_host, bad_parameters_are_refused_before_any_allocation) {
  auto refused = [](const char* variant, const nlohmann::json& o) {
    const auto& v = bb::test::variant_of("stride", variant);
    EXPECT_THROW(v.make(bb::test::params_of("stride", o), 1), bb::unsupported_parameter) << o.dump();
    EXPECT_THROW(v.plan(bb::test::params_of("stride", o)), bb::unsupported_parameter) << o.dump();
  };
  refused("broadcast", {{"stride", 2}});
  refused("strided", {{"width", 3}});
  refused("strided", {{"stride", 0}});
  refused("strided", {{"iters", 0}});
  refused("strided", {{"stride", 128}, {"width", 16}}); // 64 KiB of shared memory
}

} // namespace
