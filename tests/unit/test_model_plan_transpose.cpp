// transpose without a GPU: for every tile, block and element type the access plans (built from
// the kernels' own layout offsets) give, under the bank model, the signatures
// experiments/transpose/tiles.yaml and wide.yaml expect; shapes no kernel handles are refused.
#include <gtest/gtest.h>

#include "plan_test_util.hpp"

namespace {

using bb::test::per_request;
using bb::test::predict_of;

struct expected_shape {
  const char* variant;
  const char* type;
  int tile, block_rows;
  double load, store; // wavefronts per request
};

// By hand: a float column of an unpadded tile sits in one bank (32-way; a 16-wide tile's warp
// reads two columns of 16 rows, 8 lanes per bank); padding a 16-wide float tile puts lane 15 of
// the second column in lane 0's bank (17 x 15 + 1 = 256); doubles are served per half-warp, two
// wavefronts at best.
const expected_shape k_shapes[] = {
    {"naive", "float", 16, 8, 8, 1},         {"naive", "float", 16, 16, 8, 1},
    {"naive", "float", 32, 8, 32, 1},        {"naive", "float", 32, 32, 32, 1},
    {"naive", "float", 64, 8, 32, 1},        {"naive", "float", 64, 32, 32, 1},
    {"naive", "double", 16, 8, 32, 2},       {"naive", "double", 32, 8, 32, 2},
    {"naive", "double", 64, 32, 32, 2},      {"padded", "float", 16, 8, 2, 2},
    {"padded", "float", 16, 16, 2, 2},       {"padded", "float", 32, 8, 1, 1},
    {"padded", "float", 32, 32, 1, 1},       {"padded", "float", 64, 8, 1, 1},
    {"padded", "float", 64, 32, 1, 1},       {"padded", "double", 16, 8, 2, 2},
    {"padded", "double", 32, 8, 2, 2},       {"padded", "double", 64, 8, 2, 2},
    {"padded", "double", 64, 32, 2, 2},      {"swizzled", "float", 16, 8, 1, 1},
    {"swizzled", "float", 16, 16, 1, 1},     {"swizzled", "float", 32, 32, 1, 1},
    {"swizzled", "float", 64, 8, 1, 1},      {"swizzled", "double", 16, 16, 2, 2},
    {"swizzled", "double", 32, 8, 2, 2},     {"swizzled", "double", 64, 32, 2, 2},
    {"padded_wide", "float", 32, 8, 1, 1},   {"padded_wide", "float", 64, 8, 1, 1},
    {"padded_wide", "float", 64, 16, 1, 1},  {"padded_wide", "float", 64, 32, 1, 1},
    {"padded_wide", "double", 16, 8, 2, 2},  {"padded_wide", "double", 32, 8, 2, 2},
    {"padded_wide", "double", 32, 16, 2, 2}, {"padded_wide", "double", 64, 8, 2, 2},
    {"padded_wide", "double", 64, 32, 2, 2},
};

nlohmann::json params(const char* type, int tile, int block_rows, int n) {
  return {{"n", n}, {"tile", tile}, {"block_rows", block_rows}, {"type", type}};
}

TEST(transpose_host, every_shape_has_the_predicted_signature) {
  for (const auto& e : k_shapes) {
    const std::string what = std::string(e.variant) + " " + e.type + " tile " + std::to_string(e.tile) +
                             " block_rows " + std::to_string(e.block_rows);
    const auto p = predict_of("transpose", e.variant, params(e.type, e.tile, e.block_rows, 4096));
    EXPECT_DOUBLE_EQ(per_request(p.load), e.load) << what;
    EXPECT_DOUBLE_EQ(per_request(p.store), e.store) << what;
    // Every element passes through shared memory once each way, one lane of one request each.
    const std::uint64_t requests = 4096ull * 4096 / 32;
    EXPECT_EQ(p.load.requests, requests) << what;
    EXPECT_EQ(p.store.requests, requests) << what;
  }
}

TEST(transpose_host, defaults_keep_the_original_experiment) {
  const auto plan = bb::test::plan_of("transpose", "padded", {{"n", 1024}});
  EXPECT_EQ(plan.access_bytes, 4);
  EXPECT_EQ(plan.entries.size(), 64u); // 8 warps x 4 row passes x (store, load)
  ASSERT_TRUE(plan.tile.has_value());
  EXPECT_EQ(plan.tile->name, "float tile[32][33]");
}

TEST(transpose_host, tiles_name_their_element_and_padding) {
  const auto padded = bb::test::plan_of("transpose", "padded", params("double", 64, 8, 100));
  ASSERT_TRUE(padded.tile.has_value());
  EXPECT_EQ(padded.tile->name, "double tile[64][65]");
  EXPECT_EQ(padded.access_bytes, 8);
  EXPECT_EQ(padded.tile->address.at(5 * 64 + 2), (5u * 65 + 2) * 8); // one double of padding per row
  const auto swizzled = bb::test::plan_of("transpose", "swizzled", params("float", 16, 8, 100));
  ASSERT_TRUE(swizzled.tile.has_value());
  EXPECT_EQ(swizzled.tile->name, "float tile[16][16]");
  EXPECT_EQ(swizzled.tile->address.at(5 * 16 + 2), (5u * 16 + (2 ^ 5)) * 4);
  const auto wide = bb::test::plan_of("transpose", "padded_wide", params("float", 64, 8, 100));
  ASSERT_TRUE(wide.tile.has_value());
  EXPECT_EQ(wide.tile->name, "float tile[64][65]");
}

// 1000 = 15 x 64 + 40: lanes outside the matrix are inactive and the rest stay conflict-free.
TEST(transpose_host, ragged_edges_leave_lanes_outside_inactive) {
  for (const char* variant : {"padded", "padded_wide"}) {
    const auto p = predict_of("transpose", variant, params("float", 64, 8, 1000));
    EXPECT_EQ(p.load.wavefronts, p.load.requests) << variant;
    EXPECT_EQ(p.store.wavefronts, p.store.requests) << variant;
  }
  // padded, block (32, 8): a request is 32 columns of one row; each of the 1000 rows meets 15
  // full tiles (2 requests each) and the last 40 columns (32 + 8 lanes: 2 requests).
  EXPECT_EQ(predict_of("transpose", "padded", params("float", 64, 8, 1000)).store.requests, 1000u * 32);
  // padded_wide: a unit is 4 rows x 32 columns, stored as 4 scalar requests; per 4 rows, 15 full
  // tiles of 2 units and the last 40 columns in 2 (the second with 2 of its 8 vectors).
  EXPECT_EQ(predict_of("transpose", "padded_wide", params("float", 64, 8, 1000)).store.requests, 250u * 32 * 4);
}

TEST(transpose_host, shapes_no_kernel_handles_are_refused) {
  const auto& padded = bb::test::variant_of("transpose", "padded");
  const auto& wide = bb::test::variant_of("transpose", "padded_wide");
  auto refused = [](const bb::variant_info& v, const nlohmann::json& p, const std::string& text) {
    try {
      v.plan(p);
      ADD_FAILURE() << v.id() << " " << p.dump() << " was accepted";
    } catch (const bb::unsupported_parameter& e) {
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  };
  refused(padded, params("float", 16, 32, 100), "exceeds the 16-row tile");
  refused(padded, params("float", 48, 8, 100), "tile = 48 is not one of 16, 32, 64");
  refused(padded, params("float", 32, 4, 100), "block_rows = 4 is not one of 8, 16, 32");
  refused(padded, params("half", 32, 8, 100), "type = 'half' is not one of float, double");
  refused(padded, params("float", 32, 8, 46341), "n = 46341 is outside 1..46340");
  refused(wide, params("float", 16, 8, 100), "8 16-byte vectors per tile row");
  refused(wide, params("float", 32, 32, 100), "block (32, 32) has 1024 threads for the 256 16-byte vectors");
  refused(wide, params("double", 16, 16, 100), "block (16, 16) has 256 threads for the 128");
  EXPECT_THROW(padded.make(params("float", 16, 32, 100), 1), bb::unsupported_parameter);
  EXPECT_THROW(wide.make(params("float", 16, 8, 100), 1), bb::unsupported_parameter);
}

} // namespace
