// convolution without a GPU: the load passes fill every cell of the 34 x 34 halo tile once, the
// output passes cover the 32 x 32 outputs once in either walk, and the access plans give the
// signatures experiments/convolution/convolution.yaml expects.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/convolution/stencil.hpp"
#include "plan_test_util.hpp"

namespace {

using namespace bb::convolution;
using bb::test::conflicts_per_request;
using bb::test::per_request;
using bb::test::predict_of;

TEST(convolution_host, load_passes_fill_each_halo_cell_once) {
  std::vector<int> filled(k_halo * k_halo, 0);
  for (int pass = 0; pass < k_load_passes; ++pass)
    for (int ty = 0; ty < k_block_rows; ++ty)
      for (int tx = 0; tx < k_tile; ++tx) {
        const cell c = load_cell(pass, tx, ty);
        if (c.row < 0) continue;
        ASSERT_LT(c.row, k_halo);
        ASSERT_LT(c.col, k_halo);
        ++filled[c.row * k_halo + c.col];
      }
  for (int i = 0; i < k_halo * k_halo; ++i) EXPECT_EQ(filled[i], 1) << "cell " << i / k_halo << "," << i % k_halo;
}

TEST(convolution_host, output_passes_cover_the_tile_once_in_either_walk) {
  for (const bool columns : {false, true}) {
    std::vector<int> done(k_tile * k_tile, 0);
    for (int j = 0; j < k_tile / k_block_rows; ++j)
      for (int ty = 0; ty < k_block_rows; ++ty)
        for (int tx = 0; tx < k_tile; ++tx) {
          const cell o = output_cell(j, tx, ty, columns);
          ++done[o.row * k_tile + o.col];
        }
    for (int i = 0; i < k_tile * k_tile; ++i) EXPECT_EQ(done[i], 1) << columns << " " << i;
  }
}

TEST(convolution_host, the_blur_keeps_a_constant_inside_and_zero_pads_the_edges) {
  float total = 0;
  for (int dy = 0; dy < 3; ++dy)
    for (int dx = 0; dx < 3; ++dx) total += weight(dy, dx);
  EXPECT_EQ(total, 1.0f);
  const std::vector<float> image(5 * 5, 0.5f);
  EXPECT_EQ(reference_pixel(image, 5, 2, 2), 0.5f);
  EXPECT_EQ(reference_pixel(image, 5, 0, 0), 0.5f * 9 / 16); // taps 4 + 2 + 2 + 1 inside
}

TEST(convolution_host, plans_give_the_signatures_of_the_experiment) {
  struct expected {
    const char* variant;
    const char* walk;
    double load, store;
  };
  for (const auto& e : {expected{"unpadded", "rows", 1, 39.0 / 37}, expected{"unpadded", "columns", 2, 39.0 / 37},
                        expected{"padded", "rows", 1, 1}, expected{"padded", "columns", 1, 1}}) {
    const auto p = predict_of("convolution", e.variant, {{"walk", e.walk}, {"n", 128}});
    EXPECT_EQ(p.load.requests, 16u * 288) << e.variant << " " << e.walk; // 4 x 4 full tiles
    EXPECT_EQ(p.store.requests, 16u * 37) << e.variant << " " << e.walk;
    EXPECT_DOUBLE_EQ(per_request(p.load), e.load) << e.variant << " " << e.walk;
    EXPECT_DOUBLE_EQ(per_request(p.store), e.store) << e.variant << " " << e.walk;
  }
  EXPECT_DOUBLE_EQ(conflicts_per_request(predict_of("convolution", "unpadded", {{"walk", "columns"}}).load), 1.0);
}

// n = 100: 4 x 4 tiles whose last row and column hold 4 outputs. Warps with no output inside issue
// no load, the others load for their inside lanes only, except the first output pass walking
// columns, which every lane of every warp loads (as an H200 counted); the halo stores are the same
// everywhere. Walking rows: 12 blocks x 288 and the 4 bottom blocks' 4 warps x 9 = 3600 requests,
// 1 wavefront each. Walking columns: 16 blocks x 8 warps x 9 for the first pass, then 12 blocks
// (all but the last tile column) x 8 warps x 27 = 3744. In the unpadded tile a whole warp walking
// a column is 2-way (pitch 34 puts rows r and r + 16 in one bank): every request at 2 but the 3
// bottom blocks' 648 later-pass requests, whose 4 lanes (rows 96-99) take 1.
TEST(convolution_host, partial_tiles_load_only_for_outputs_inside_the_image) {
  struct expected {
    const char* variant;
    const char* walk;
    unsigned long long load_requests, load_wavefronts;
  };
  for (const auto& e : {expected{"unpadded", "rows", 3600, 3600}, expected{"unpadded", "columns", 3744, 2 * 3096 + 648},
                        expected{"padded", "rows", 3600, 3600}, expected{"padded", "columns", 3744, 3744}}) {
    const auto p = predict_of("convolution", e.variant, {{"walk", e.walk}, {"n", 100}});
    EXPECT_EQ(p.load.requests, e.load_requests) << e.variant << " " << e.walk;
    EXPECT_EQ(p.load.wavefronts, e.load_wavefronts) << e.variant << " " << e.walk;
    EXPECT_EQ(p.store.requests, 16u * 37) << e.variant << " " << e.walk;
  }
  // One pixel, one block: walking rows one warp loads for one lane (9 requests); walking columns
  // the first pass's 8 warps load for all lanes (72).
  const auto rows = bb::test::plan_of("convolution", "padded", {{"walk", "rows"}, {"n", 1}});
  EXPECT_EQ(bb::model::predict(rows).load.requests, 9u);
  for (const auto& e : rows.entries) {
    if (e.access.kind == bb::model::access_kind::load) {
      EXPECT_EQ(e.access.active, 1u);
    }
  }
  EXPECT_EQ(predict_of("convolution", "padded", {{"walk", "columns"}, {"n", 1}}).load.requests, 72u);
  EXPECT_EQ(predict_of("convolution", "unpadded", {{"walk", "columns"}, {"n", 1}}).load.wavefronts, 144u);
}

TEST(convolution_host, unknown_walks_and_sizes_are_refused) {
  EXPECT_THROW(bb::test::plan_of("convolution", "padded", {{"walk", "diagonal"}}), bb::unsupported_parameter);
  EXPECT_THROW(bb::test::plan_of("convolution", "padded", {{"n", 0}}), bb::unsupported_parameter);
}

} // namespace
