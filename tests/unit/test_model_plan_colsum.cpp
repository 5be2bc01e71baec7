// colsum without a GPU: thread t summing row t reads columns (32-way at pitch 32, conflict-free at
// 33); thread t summing column t reads rows (conflict-free at either).
#include <gtest/gtest.h>

#include "plan_test_util.hpp"

namespace {

using bb::test::per_request;
using bb::test::predict_of;

TEST(colsum_host, signatures) {
  const auto rows32 = predict_of("colsum", "rows", {{"pitch", 32}, {"batch", 9}});
  EXPECT_EQ(rows32.load.requests, 9u * 32); // 32 steps per warp, one warp per matrix
  EXPECT_DOUBLE_EQ(per_request(rows32.load), 32.0);
  EXPECT_EQ(rows32.load.conflicts, 9u * 32 * 31);
  EXPECT_DOUBLE_EQ(per_request(predict_of("colsum", "rows", {{"pitch", 33}}).load), 1.0);
  for (const int pitch : {32, 33}) {
    const auto c = predict_of("colsum", "columns", {{"pitch", pitch}});
    EXPECT_DOUBLE_EQ(per_request(c.load), 1.0) << pitch;
    EXPECT_DOUBLE_EQ(per_request(c.store), 1.0) << pitch;
  }
  EXPECT_DOUBLE_EQ(per_request(predict_of("colsum", "rows", {{"pitch", 34}}).load), 2.0);
  EXPECT_DOUBLE_EQ(per_request(predict_of("colsum", "rows", {{"pitch", 48}}).load), 16.0);
}

TEST(colsum_host, bad_parameters_are_refused_before_any_allocation) {
  const auto& v = bb::test::variant_of("colsum", "rows");
  EXPECT_THROW(v.make(bb::test::params_of("colsum", {{"pitch", 31}}), 1), bb::unsupported_parameter);
  EXPECT_THROW(v.make(bb::test::params_of("colsum", {{"pitch", 49}}), 1), bb::unsupported_parameter);
  EXPECT_THROW(v.make(bb::test::params_of("colsum", {{"batch", 0}}), 1), bb::unsupported_parameter);
}

} // namespace
