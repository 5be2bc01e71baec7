// stride without a GPU: the index function and accumulator the kernel and CPU reference share,
// and the access plans' signatures under the bank model (for 4-byte words, gcd(stride, 32)).
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

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
  // 31 x 3 + 7 x 16 + 1 = 206 elements, fewer than the block's 256 threads: one store per thread
  // below 206, so one request per 32-element chunk, 7 per block.
  const int elements = bb::stride::array_elements(3, 1, 8);
  ASSERT_EQ(elements, 206);
  EXPECT_EQ(p.store.requests, 2u * 7);
}

// The fill `for (e = tid; e < elements; e += 256) s[e] = in[e]` as nvcc compiles it: a thread's
// trips = (elements - 1 - tid) / 256 + 1 stores, trips % 4 of them in a remainder loop first, then
// trips / 4 passes of the loop unrolled by 4; a warp runs each loop as long as its longest lane.
TEST(stride_host, fill_stores_follow_the_unrolled_loop) {
  // Width 16, stride 23: 31 x 23 + 7 x 8 + 1 = 770 elements. Threads 0 and 1 make 4 trips
  // (769 - tid >= 768), threads 2-255 make 3. Warp 0: lanes 2-31 store in 3 remainder trips,
  // lanes 0 and 1 in one unrolled pass of 4: 7 requests; warps 1-7: 3 requests each. 28 per block,
  // not 25 = ceil(770 / 32). 16-byte stores take one wavefront per quarter-warp that has a lane
  // in it: 21 full requests and warp 0's 3 of lanes 2-31 take 4, its 4 of lanes 0-1 take 1:
  // 24 x 4 + 4 = 100 per block. Over 8 blocks 224 requests and 800 wavefronts (an H200 and
  // Nsight Compute counted the same, docs/measurements/2026-11-21-h200-second-set.md).
  const auto wide = predict_of("stride", "strided", {{"stride", 23}, {"width", 16}, {"blocks", 8}});
  EXPECT_EQ(wide.store.requests, 224u);
  EXPECT_EQ(wide.store.wavefronts, 800u);
  EXPECT_EQ(wide.store.conflicts, 0u);

  // Width 1, stride 8: 31 x 8 + 7 x 128 + 1 = 1145 elements. Threads 0-120 make 5 trips (1 in the
  // remainder loop, then one pass of 4), threads 121-255 make 4 (one pass). Requests: warps 0-3
  // 1 + 4, warps 4-7 4: 36, as many as 32-element chunks. But in warp 3's pass, lanes 0-24 store
  // element tid + 256 (u + 1) and lanes 25-31 element tid + 256 u: at u = 0 lane 24 writes byte
  // 376 (word 94) and lanes 25-27 bytes 121-123 (word 30), both bank 30, a conflict in each of
  // the 4 stores: 4 per block, 32 over 8 blocks, and 36 + 4 = 40 wavefronts per block.
  const auto narrow = predict_of("stride", "strided", {{"stride", 8}, {"width", 1}, {"blocks", 8}});
  EXPECT_EQ(narrow.store.requests, 8u * 36);
  EXPECT_EQ(narrow.store.conflicts, 8u * 4);
  EXPECT_EQ(narrow.store.wavefronts, 8u * 40);
}

TEST(stride_host, fill_stores_write_every_element_once) {
  for (const char* variant : {"strided", "multicast"})
    for (const int w : {1, 2, 4, 8, 16})
      for (const int s : {1, 2, 7, 23, 32, 64}) {
        const auto plan = bb::test::plan_of("stride", variant, {{"stride", s}, {"width", w}, {"blocks", 1}});
        const int group = std::string(variant) == "strided" ? 1 : 2;
        std::vector<int> written(static_cast<std::size_t>(bb::stride::array_elements(s, group, w)), 0);
        for (const auto& e : plan.entries) {
          if (e.access.kind != bb::model::access_kind::store) continue;
          for (int lane = 0; lane < 32; ++lane)
            if ((e.access.active >> lane & 1u) != 0)
              written.at(e.access.address[static_cast<std::size_t>(lane)] /
                         static_cast<unsigned>(w)) += static_cast<int>(e.count);
        }
        EXPECT_EQ(std::count(written.begin(), written.end(), 1), static_cast<std::ptrdiff_t>(written.size()))
            << variant << " stride " << s << " width " << w;
      }
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
