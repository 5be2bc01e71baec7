// column_access without a GPU: its access plans (built from the kernel's own Layout::offset) give
// the textbook signature under the bank model, and bad parameters are refused before any CUDA call.
#include <gtest/gtest.h>

#include "plan_test_util.hpp"

namespace {

using bb::test::per_request;
using bb::test::predict_of;

TEST(column_access_host, every_variant_has_a_plan) {
  const auto variants = bb::registry::instance().variants("column_access");
  ASSERT_EQ(variants.size(), 3u);
  for (const auto* v : variants) EXPECT_TRUE(v->plan) << v->id();
}

TEST(column_access_host, naive_column_reads_are_32_way_and_the_others_conflict_free) {
  for (const int rows : {1, 32}) {
    const auto naive = predict_of("column_access", "naive", {{"block_rows", rows}, {"batch", 10}});
    EXPECT_EQ(naive.load.requests, 10u * 32) << rows; // one per column per tile
    EXPECT_DOUBLE_EQ(per_request(naive.load), 32.0) << rows;
    EXPECT_EQ(naive.load.conflicts, 10u * 32 * 31) << rows;
    EXPECT_DOUBLE_EQ(per_request(naive.store), 1.0) << rows;
    for (const char* v : {"padded", "odd31"}) {
      const auto p = predict_of("column_access", v, {{"block_rows", rows}, {"batch", 10}});
      EXPECT_DOUBLE_EQ(per_request(p.load), 1.0) << v << " " << rows;
      EXPECT_EQ(p.load.conflicts, 0u) << v << " " << rows;
      EXPECT_DOUBLE_EQ(per_request(p.store), 1.0) << v << " " << rows;
    }
  }
}

TEST(column_access_host, the_31_wide_tile_uses_31_lanes) {
  const auto plan = bb::test::plan_of("column_access", "odd31", {{"block_rows", 32}, {"batch", 1}});
  ASSERT_FALSE(plan.entries.empty());
  for (const auto& e : plan.entries) EXPECT_EQ(e.access.active, 0x7fffffffu);
  const auto p = bb::model::predict(plan);
  EXPECT_EQ(p.load.requests, 31u); // warp 31 of the (32, 32) block has no column
  EXPECT_EQ(p.store.requests, 31u);
  ASSERT_TRUE(plan.tile.has_value());
  EXPECT_EQ(plan.tile->name, "float tile[31][31]");
  EXPECT_EQ(plan.tile->address.at(2 * 31 + 5), (2u * 31 + 5) * 4);
}

TEST(column_access_host, padded_tile_layout) {
  const auto plan = bb::test::plan_of("column_access", "padded");
  ASSERT_TRUE(plan.tile.has_value());
  EXPECT_EQ(plan.tile->name, "float tile[32][33]");
  EXPECT_EQ(plan.tile->address.at(5 * 32 + 2), (5u * 33 + 2) * 4);
}

TEST(column_access_host, bad_parameters_are_refused_before_any_allocation) {
  const auto& v = bb::test::variant_of("column_access", "naive");
  EXPECT_THROW(v.make(bb::test::params_of("column_access", {{"block_rows", 0}}), 1), bb::unsupported_parameter);
  EXPECT_THROW(v.make(bb::test::params_of("column_access", {{"block_rows", 33}}), 1), bb::unsupported_parameter);
  EXPECT_THROW(v.make(bb::test::params_of("column_access", {{"batch", 0}}), 1), bb::unsupported_parameter);
  EXPECT_THROW(v.plan(bb::test::params_of("column_access", {{"batch", 1 << 30}})), bb::unsupported_parameter);
}

} // namespace
