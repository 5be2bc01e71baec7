// vector without a GPU: float, float2 and float4 row reads take 1, 2 and 4 wavefronts per request
// under the bank model, and the same wavefronts per tile.
#include <gtest/gtest.h>

#include "plan_test_util.hpp"

namespace {

using bb::test::per_request;
using bb::test::predict_of;

TEST(vector_host, wider_loads_fewer_requests_same_wavefronts) {
  for (const int pitch : {32, 36}) {
    const struct {
      const char* name;
      unsigned requests;
      double per;
    } cases[] = {{"scalar", 32, 1}, {"float2", 16, 2}, {"float4", 8, 4}};
    for (const auto& c : cases) {
      const auto p = predict_of("vector", c.name, {{"pitch", pitch}, {"batch", 5}});
      EXPECT_EQ(p.load.requests, 5u * c.requests) << c.name << " " << pitch;
      EXPECT_DOUBLE_EQ(per_request(p.load), c.per) << c.name << " " << pitch;
      EXPECT_EQ(p.load.wavefronts, 5u * 32) << c.name << " " << pitch;
      EXPECT_EQ(p.load.conflicts, 0u) << c.name << " " << pitch;
      EXPECT_DOUBLE_EQ(per_request(p.store), 1.0) << c.name << " " << pitch;
    }
  }
}

TEST(vector_host, rows_must_stay_aligned_for_the_load_width) {
  EXPECT_NO_THROW(predict_of("vector", "scalar", {{"pitch", 33}}));
  EXPECT_THROW(predict_of("vector", "float2", {{"pitch", 33}}), bb::unsupported_parameter);
  EXPECT_THROW(predict_of("vector", "float4", {{"pitch", 34}}), bb::unsupported_parameter);
  const auto& v = bb::test::variant_of("vector", "float4");
  EXPECT_THROW(v.make(bb::test::params_of("vector", {{"pitch", 34}}), 1), bb::unsupported_parameter);
  EXPECT_THROW(v.make(bb::test::params_of("vector", {{"pitch", 68}}), 1), bb::unsupported_parameter);
  EXPECT_THROW(v.make(bb::test::params_of("vector", {{"batch", 0}}), 1), bb::unsupported_parameter);
}

} // namespace
