// padding without a GPU: the access plans (built from the kernel's tile_shape::offset) give, under
// the bank model, the column signatures experiments/padding/*.yaml expect; bad parameters are
// refused before any CUDA call.
#include <gtest/gtest.h>

#include "plan_test_util.hpp"

namespace {

using bb::test::per_request;
using bb::test::predict_of;

struct expected_column {
  const char* type;
  int cols, pitch;
  double wavefronts; // per column request, the mean over the tile's columns
  double ideal;
};

// Rules v1 by hand: for 4-byte words the degree of a column is gcd(words per row, 32); wider
// elements are served per half- or quarter-warp; char and short columns depend on the column's
// place in its word (char[32][33]: columns 0, 4, ... conflict-free, others 2-way: mean 1.75).
const expected_column k_columns[] = {
    {"char", 32, 32, 8, 1},
    {"char", 32, 33, 1.75, 1},
    {"char", 32, 34, 2, 1},
    {"char", 32, 35, 3, 1},
    {"char", 32, 36, 1, 1},
    {"short", 32, 32, 16, 1},
    {"short", 32, 33, 1.5, 1},
    {"short", 32, 34, 1, 1},
    {"short", 32, 35, 2, 1},
    {"short", 32, 36, 2, 1},
    {"float", 32, 32, 32, 1},
    {"float", 32, 33, 1, 1},
    {"float", 32, 34, 2, 1},
    {"float", 32, 35, 1, 1},
    {"float", 32, 36, 4, 1},
    {"double", 32, 32, 32, 2},
    {"double", 32, 33, 2, 2},
    {"double", 32, 34, 4, 2},
    {"double", 32, 35, 2, 2},
    {"double", 32, 36, 8, 2},
    {"float4", 32, 32, 32, 4},
    {"float4", 32, 33, 4, 4},
    {"float4", 32, 34, 8, 4},
    {"float4", 32, 35, 4, 4},
    {"float4", 32, 36, 16, 4},
    {"struct12", 32, 32, 32, 1},
    {"struct12", 32, 33, 1, 1},
    {"struct12", 32, 34, 2, 1},
    {"struct12", 32, 35, 1, 1},
    {"struct12", 32, 36, 4, 1},
    // The paddings people are told to use, and the same shapes unpadded.
    {"double", 32, 33, 2, 2},
    {"char", 128, 129, 4, 1},
    {"struct12", 10, 11, 1, 1},
    {"float4", 8, 9, 4, 4},
    {"char", 128, 128, 32, 1},
    {"struct12", 10, 10, 2, 1},
    {"float4", 8, 8, 32, 4},
    {"char", 128, 130, 2, 1},
    {"char", 128, 132, 1, 1},
};

TEST(padding_host, column_signatures_follow_the_row_length_in_words) {
  for (const auto& e : k_columns) {
    const nlohmann::json params = {{"type", e.type}, {"cols", e.cols}, {"pitch", e.pitch}, {"batch", 3}};
    const auto read = predict_of("padding", "column_read", params);
    const auto write = predict_of("padding", "column_write", params);
    const std::string what = std::string(e.type) + "[32][" + std::to_string(e.pitch) + "]";
    EXPECT_DOUBLE_EQ(per_request(read.load), e.wavefronts) << what;
    EXPECT_DOUBLE_EQ(per_request(write.store), e.wavefronts) << what;
    EXPECT_DOUBLE_EQ(static_cast<double>(read.load.ideal_wavefronts) / static_cast<double>(read.load.requests), e.ideal)
        << what;
  }
}

TEST(padding_host, the_row_side_is_ideal_for_32_columns) {
  for (const char* type : {"char", "short", "float", "double", "float4", "struct12"})
    for (int pitch = 32; pitch <= 36; ++pitch) {
      const nlohmann::json params = {{"type", type}, {"pitch", pitch}};
      const auto read = predict_of("padding", "column_read", params);
      const auto write = predict_of("padding", "column_write", params);
      EXPECT_EQ(read.store.conflicts, 0u) << type << " " << pitch;
      EXPECT_EQ(write.load.conflicts, 0u) << type << " " << pitch;
    }
  // struct12 with 10 columns in rows of 11: 32 consecutive elements span rows and meet in a bank.
  const auto s = predict_of("padding", "column_read", {{"type", "struct12"}, {"cols", 10}, {"pitch", 11}});
  EXPECT_DOUBLE_EQ(per_request(s.store), 2.0);
}

TEST(padding_host, requests_per_tile) {
  // float: 32 columns, one request each; 32 rows of 32 elements, one request each.
  auto p = predict_of("padding", "column_read", {{"type", "float"}, {"batch", 7}});
  EXPECT_EQ(p.load.requests, 7u * 32);
  EXPECT_EQ(p.store.requests, 7u * 32);
  // struct12 moves as three 4-byte requests per element; char[32][128]: 128 columns, 4096 elements.
  p = predict_of("padding", "column_write", {{"type", "struct12"}, {"batch", 2}});
  EXPECT_EQ(p.store.requests, 2u * 32 * 3);
  EXPECT_EQ(p.load.requests, 2u * 32 * 3);
  p = predict_of("padding", "column_read", {{"type", "char"}, {"cols", 128}, {"pitch", 129}, {"batch", 1}});
  EXPECT_EQ(p.load.requests, 128u);
  EXPECT_EQ(p.store.requests, 128u);
  EXPECT_EQ(bb::test::plan_of("padding", "column_read", {{"type", "struct12"}}).access_bytes, 4);
  EXPECT_EQ(bb::test::plan_of("padding", "column_read", {{"type", "float4"}}).access_bytes, 16);
}

TEST(padding_host, tile_layout_names_the_declaration) {
  const auto plan = bb::test::plan_of("padding", "column_read", {{"type", "double"}, {"pitch", 33}});
  ASSERT_TRUE(plan.tile.has_value());
  EXPECT_EQ(plan.tile->name, "double tile[32][33]");
  EXPECT_EQ(plan.tile->address.at(3 * 32 + 4), (3u * 33 + 4) * 8);
}

TEST(padding_host, bad_parameters_are_refused_before_any_allocation) {
  const auto& v = bb::test::variant_of("padding", "column_read");
  auto refused = [&](const nlohmann::json& o) {
    EXPECT_THROW(v.make(bb::test::params_of("padding", o), 1), bb::unsupported_parameter) << o.dump();
    EXPECT_THROW(v.plan(bb::test::params_of("padding", o)), bb::unsupported_parameter) << o.dump();
  };
  refused({{"type", "int"}});
  refused({{"pitch", 31}});                     // less than cols
  refused({{"type", "float4"}, {"pitch", 97}}); // 49664 bytes of shared memory
  refused({{"batch", 0}});
  refused({{"type", "float4"}, {"batch", 1 << 17}}); // 2 GiB of input
}

} // namespace
