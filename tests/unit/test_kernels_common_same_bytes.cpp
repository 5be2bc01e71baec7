// kernels/common/same_bytes.hpp built by the C++ compiler alone: the bit-exact test tells apart
// what == confuses (signed zeros) and matches what == rejects (a NaN).
#include <gtest/gtest.h>

#include <limits>

#include "kernels/common/same_bytes.hpp"

namespace {

TEST(kernels_common_same_bytes, tells_nan_and_signed_zero_apart) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(bb::same_bytes(nan, nan));
  EXPECT_FALSE(bb::same_bytes(0.0f, -0.0f));
  EXPECT_TRUE(bb::same_bytes(1.5f, 1.5f));
}

} // namespace
