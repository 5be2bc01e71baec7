// scan without a GPU: the sweeps of kernels/scan/sweep.hpp, run on the CPU as the kernels run them,
// give the exclusive scan; the access plans give the signatures experiments/scan/scan.yaml expects.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "runner/model/evaluate.hpp"
#include "plan_test_util.hpp"
#include "kernels/scan/sweep.hpp"

namespace {

using namespace bb::scan;
using bb::test::per_request;
using bb::test::predict_of;

std::vector<std::uint32_t> block_input(std::uint64_t seed) {
  std::vector<std::uint32_t> in(k_elements);
  fill_integers(in, seed);
  return in;
}

TEST(scan_host, blelloch_sweeps_give_the_exclusive_scan) {
  const auto in = block_input(3);
  std::vector<std::uint32_t> want;
  reference_scan(in, want);
  auto temp = in;
  for (int level = 0; level < k_log_elements; ++level)
    for (int t = 0; t < sweep_threads(level); ++t) temp[sweep_bi(t, 1 << level)] += temp[sweep_ai(t, 1 << level)];
  temp[k_elements - 1] = 0;
  for (int level = k_log_elements - 1; level >= 0; --level)
    for (int t = 0; t < sweep_threads(level); ++t) {
      const int ai = sweep_ai(t, 1 << level), bi = sweep_bi(t, 1 << level);
      const std::uint32_t left = temp[ai], right = temp[bi];
      temp[ai] = right;
      temp[bi] = right + left;
    }
  EXPECT_EQ(temp, want);
}

TEST(scan_host, hillis_steele_double_buffer_gives_the_exclusive_scan) {
  const auto in = block_input(4);
  std::vector<std::uint32_t> want;
  reference_scan(in, want);
  std::vector<std::uint32_t> temp(2 * k_elements);
  for (int t = 0; t < k_elements; ++t) temp[hs_word(0, t)] = t > 0 ? in[t - 1] : 0u;
  int pout = 0;
  for (int offset = 1; offset < k_elements; offset *= 2) {
    const int pin = pout;
    pout = 1 - pout;
    for (int t = 0; t < k_elements; ++t)
      temp[hs_word(pout, t)] = temp[hs_word(pin, t)] + (t >= offset ? temp[hs_word(pin, t - offset)] : 0u);
  }
  for (int t = 0; t < k_elements; ++t) EXPECT_EQ(temp[hs_word(pout, t)], want[t]) << t;
}

TEST(scan_host, reference_restarts_at_every_block_and_wraps) {
  std::vector<std::uint32_t> in(2 * k_elements + 5, 0x80000000u), out;
  reference_scan(in, out);
  EXPECT_EQ(out[0], 0u);
  EXPECT_EQ(out[1], 0x80000000u);
  EXPECT_EQ(out[2], 0u); // wrapped mod 2^32
  EXPECT_EQ(out[k_elements], 0u);
  EXPECT_EQ(out[2 * k_elements + 3], 0x80000000u);
}

TEST(scan_host, plans_give_the_signatures_of_the_experiment) {
  const std::uint64_t blocks = 16777216 / k_elements;
  // Source level, per block: 176 loads (828 wavefronts) and 141 stores (638). nvcc reads each of
  // level 0's pairs (2t, 2t + 1, adjacent words) with one 8-byte request, 2 wavefronts, where two
  // 4-byte ones took 2 each, in the up- and the down-sweep, and writes them back with one: per
  // warp 2 loads and 1 store fewer, 4 load and 2 store wavefronts fewer.
  const auto b = predict_of("scan", "blelloch");
  EXPECT_EQ(b.load.requests, (176 - 32) * blocks);
  EXPECT_EQ(b.load.wavefronts, (828 - 64) * blocks);
  EXPECT_EQ(b.store.requests, (141 - 16) * blocks);
  EXPECT_EQ(b.store.wavefronts, (638 - 32) * blocks);
  const auto p = predict_of("scan", "blelloch_padded");
  EXPECT_EQ(p.load.requests, 176 * blocks);
  EXPECT_DOUBLE_EQ(per_request(p.load), 1.0);
  EXPECT_DOUBLE_EQ(per_request(p.store), 1.0);
  const auto h = predict_of("scan", "hillis_steele");
  EXPECT_EQ(h.load.requests, 641 * blocks);
  EXPECT_EQ(h.store.requests, 352 * blocks);
  EXPECT_DOUBLE_EQ(per_request(h.load), 1.0);
  EXPECT_DOUBLE_EQ(per_request(h.store), 1.0);
}

TEST(scan_host, blelloch_conflicts_grow_to_32_way_and_padding_removes_every_one) {
  int worst = 0;
  for (const auto& e : bb::test::plan_of("scan", "blelloch").entries)
    worst = std::max(worst, bb::model::evaluate(e.access).degree);
  EXPECT_EQ(worst, 32);
  for (const auto& e : bb::test::plan_of("scan", "blelloch_padded").entries) {
    EXPECT_EQ(bb::model::evaluate(e.access).degree, 1);
    for (int lane = 0; lane < 32; ++lane) { // inside temp[1024 + 32]
      if (e.access.active & (1u << lane)) {
        EXPECT_LT(e.access.address[lane], (1024u + 32u) * 4u);
      }
    }
  }
}

TEST(scan_host, a_partial_block_reads_back_only_its_elements) {
  // n = 1024 + 100: the second block's final reads have 100 active lanes in all.
  const auto h = predict_of("scan", "hillis_steele", {{"n", 1124}});
  EXPECT_EQ(h.load.requests, 641u + 609u + 4u); // 4 warps hold elements 0..99
  EXPECT_THROW(bb::test::plan_of("scan", "blelloch", {{"n", 0}}), bb::unsupported_parameter);
}

} // namespace
