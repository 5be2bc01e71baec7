// reduction without a GPU: the trees of kernels/reduction/tree.hpp sum a block exactly and race-free,
// and their access plans give, under the bank model, the signatures experiments/reduction/*.yaml expect.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "runner/model/evaluate.hpp"
#include "plan_test_util.hpp"
#include "kernels/reduction/tree.hpp"

namespace {

using bb::test::conflicts_per_request;
using bb::test::per_request;
using bb::test::predict_of;

/// Runs Tree over one block of integers the way tree_kernel does, checking each step for races:
/// the words written are distinct and none of them is read by another thread in the same step.
template <class Tree> std::int64_t tree_sum(std::vector<std::int64_t> words) {
  const int block = static_cast<int>(words.size());
  for (int step = 0; step < bb::reduction::log2_exact(block); ++step) {
    const int s = Tree::stride(step, block);
    std::set<int> written, read;
    for (int tid = 0; tid < block; ++tid) {
      if (!Tree::active(tid, s, block)) continue;
      const int t = Tree::target(tid, s);
      EXPECT_LT(t + s, block) << "step " << step << " tid " << tid;
      EXPECT_TRUE(written.insert(t).second) << "two threads write word " << t;
      read.insert(t + s);
    }
    for (const int w : written) EXPECT_EQ(read.count(w), 0u) << "word " << w << " written and read in step " << step;
    for (const int t : written) words[t] += words[t + s];
  }
  return words[0];
}

template <class Tree> void expect_exact_sums() {
  std::mt19937_64 rng(7);
  for (int block = 32; block <= 1024; block *= 2) {
    std::vector<std::int64_t> words(block);
    std::int64_t sum = 0;
    for (auto& w : words) sum += (w = static_cast<std::int64_t>(rng() % 2001) - 1000);
    EXPECT_EQ(tree_sum<Tree>(words), sum) << "block " << block;
  }
}

TEST(reduction_host, every_tree_sums_a_block_exactly_without_races) {
  expect_exact_sums<bb::reduction::interleaved_divergent_tree>();
  expect_exact_sums<bb::reduction::interleaved_strided_tree>();
  expect_exact_sums<bb::reduction::sequential_tree>();
}

TEST(reduction_host, the_strided_index_conflicts_grow_with_the_block) {
  struct expected {
    int block;
    double load, store;
  };
  // Wavefronts / requests per block, counted by hand in experiments/reduction/reduction.yaml.
  for (const auto& e : {expected{128, 47.0 / 17, 27.0 / 12}, expected{256, 95.0 / 25, 55.0 / 20},
                        expected{512, 191.0 / 41, 111.0 / 36}, expected{1024, 383.0 / 73, 223.0 / 68}}) {
    const auto p = predict_of("reduction", "interleaved_strided", {{"block", e.block}});
    EXPECT_DOUBLE_EQ(per_request(p.load), e.load) << e.block;
    EXPECT_DOUBLE_EQ(per_request(p.store), e.store) << e.block;
    // The divergent tree moves the same words: the same wavefronts, one per request.
    const auto d = predict_of("reduction", "interleaved_divergent", {{"block", e.block}});
    EXPECT_EQ(d.load.wavefronts, p.load.wavefronts) << e.block;
    EXPECT_EQ(d.load.wavefronts, d.load.requests) << e.block;
  }
}

TEST(reduction_host, the_strided_index_is_2_4_8_16_way_at_the_first_strides) {
  const auto plan = bb::test::plan_of("reduction", "interleaved_strided", {{"block", 1024}, {"n", 1024}});
  std::set<int> full_warp_degrees;
  for (const auto& e : plan.entries)
    if (e.access.active == 0xffffffffu && e.access.kind == bb::model::access_kind::load)
      full_warp_degrees.insert(bb::model::evaluate(e.access).degree);
  EXPECT_EQ(full_warp_degrees, (std::set<int>{2, 4, 8, 16, 32}));
}

TEST(reduction_host, sequential_divergent_and_shuffle_are_conflict_free) {
  for (const char* v : {"interleaved_divergent", "sequential", "warp_shuffle"})
    for (int block = 32; block <= 1024; block *= 2) {
      const auto p = predict_of("reduction", v, {{"block", block}});
      EXPECT_DOUBLE_EQ(per_request(p.load), 1.0) << v << " " << block;
      EXPECT_DOUBLE_EQ(per_request(p.store), 1.0) << v << " " << block;
      EXPECT_DOUBLE_EQ(conflicts_per_request(p.load), 0.0) << v << " " << block;
    }
}

TEST(reduction_host, request_counts_follow_the_blocks) {
  // 2^24 floats: 65536 blocks of 256 one element per thread; 4096 blocks of 256 x 16 for the shuffle.
  const auto seq = predict_of("reduction", "sequential");
  EXPECT_EQ(seq.load.requests, 65536u * 25);
  EXPECT_EQ(seq.store.requests, 65536u * 20);
  const auto shuffle = predict_of("reduction", "warp_shuffle");
  EXPECT_EQ(shuffle.load.requests, 4096u);
  EXPECT_EQ(shuffle.store.requests, 4096u * 8);
  // A partial last block makes the same requests as a full one.
  EXPECT_EQ(predict_of("reduction", "sequential", {{"n", 257}}).load.requests, 2u * 25);
}

TEST(reduction_host, sizes_outside_the_kernels_are_refused) {
  for (const char* v : {"interleaved_divergent", "interleaved_strided", "sequential", "warp_shuffle"}) {
    EXPECT_THROW(bb::test::plan_of("reduction", v, {{"block", 48}}), bb::unsupported_parameter) << v;
    EXPECT_THROW(bb::test::plan_of("reduction", v, {{"block", 16}}), bb::unsupported_parameter) << v;
    EXPECT_THROW(bb::test::plan_of("reduction", v, {{"block", 2048}}), bb::unsupported_parameter) << v;
    EXPECT_THROW(bb::test::plan_of("reduction", v, {{"n", 0}}), bb::unsupported_parameter) << v;
  }
}

} // namespace
