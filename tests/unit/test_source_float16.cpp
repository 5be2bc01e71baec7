// float16 and bfloat16 on the host: exact round trips of every bit pattern, ties to even, the
// edges of the ranges (overflow to infinity, subnormals, signed zeros, NaN), and agreement with
// independent conversions over a spread of float inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "runner/source/float16.hpp"

namespace {

using bb::source::from_bfloat16;
using bb::source::from_float16;
using bb::source::to_bfloat16;
using bb::source::to_float16;

float float_of(std::uint32_t b) {
  float f = 0;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

TEST(source_float16, every_value_round_trips_exactly) {
  for (std::uint32_t b = 0; b <= 0xffff; ++b) {
    const auto h = static_cast<std::uint16_t>(b);
    if (std::isnan(from_float16(h))) {
      EXPECT_EQ((b & 0x7c00), 0x7c00u) << b; // NaN only where the exponent is all ones
      continue;
    }
    ASSERT_EQ(to_float16(from_float16(h)), h) << std::hex << b;
    ASSERT_EQ(to_bfloat16(from_bfloat16(h)), h) << std::hex << b;
  }
  EXPECT_EQ(from_float16(0x3c00), 1.0);
  EXPECT_EQ(from_float16(0x7bff), 65504.0); // the largest finite float16
  EXPECT_EQ(from_float16(0x0001), std::ldexp(1.0, -24));
  EXPECT_EQ(from_float16(0xc000), -2.0);
  EXPECT_EQ(from_bfloat16(0x3f80), 1.0);
  EXPECT_EQ(from_bfloat16(0x0001), std::ldexp(1.0, -133));
  EXPECT_EQ(from_bfloat16(0x7f7f), std::ldexp(255.0, 120)); // the largest finite bfloat16
}

TEST(source_float16, ties_round_to_even_and_other_values_to_nearest) {
  // float16 steps by 2^-10 above 1: halfway to the next value goes to the even neighbour.
  EXPECT_EQ(to_float16(1 + std::ldexp(1.0, -11)), 0x3c00);     // 1 + half a step: down to 1 (even)
  EXPECT_EQ(to_float16(1 + 3 * std::ldexp(1.0, -11)), 0x3c02); // 1 + 1.5 steps: up to 1 + 2 steps (even)
  EXPECT_EQ(to_float16(1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -30)), 0x3c01); // just past the tie: up
  EXPECT_EQ(to_float16(1 + std::ldexp(1.0, -11) - std::ldexp(1.0, -30)), 0x3c00); // just short of it: down
  EXPECT_EQ(to_float16(2049.0), 0x6800); // 2048 + 1: a tie between 2048 and 2050
  EXPECT_EQ(to_float16(2051.0), 0x6802); // 2050 + 1: up to 2052
  EXPECT_EQ(to_float16(0.1), 0x2e66);    // 0.0999755859375
  EXPECT_EQ(to_float16(-0.1), 0xae66);
  // bfloat16 steps by 2^-7 above 1.
  EXPECT_EQ(to_bfloat16(1 + std::ldexp(1.0, -8)), 0x3f80);
  EXPECT_EQ(to_bfloat16(1 + 3 * std::ldexp(1.0, -8)), 0x3f82);
  EXPECT_EQ(to_bfloat16(1 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40)), 0x3f81);
  EXPECT_EQ(to_bfloat16(257.0), 0x4380); // 256 + 1: a tie between 256 and 258
  EXPECT_EQ(to_bfloat16(0.1), 0x3dcd);   // 0.10009765625
  // A carry out of the fraction raises the exponent: just under 2 rounds to 2.
  EXPECT_EQ(to_float16(2 - std::ldexp(1.0, -12)), 0x4000);
  EXPECT_EQ(to_bfloat16(2 - std::ldexp(1.0, -9)), 0x4000);
}

TEST(source_float16, infinity_nan_and_overflow) {
  EXPECT_EQ(to_float16(INFINITY), 0x7c00);
  EXPECT_EQ(to_float16(-INFINITY), 0xfc00);
  EXPECT_EQ(to_bfloat16(INFINITY), 0x7f80);
  EXPECT_EQ(to_bfloat16(-INFINITY), 0xff80);
  EXPECT_TRUE(std::isinf(from_float16(0x7c00)) && from_float16(0x7c00) > 0);
  EXPECT_TRUE(std::isinf(from_bfloat16(0xff80)) && from_bfloat16(0xff80) < 0);
  EXPECT_EQ(to_float16(std::nan("")), 0x7e00); // the quiet NaN
  EXPECT_EQ(to_float16(-std::nan("")), 0xfe00);
  EXPECT_EQ(to_bfloat16(std::nan("")), 0x7fc0);
  EXPECT_TRUE(std::isnan(from_float16(0x7c01)));
  EXPECT_TRUE(std::isnan(from_float16(0xffff))); // a poisoned output reads as NaN
  EXPECT_TRUE(std::isnan(from_bfloat16(0xffff)));
  // 65520 is halfway between 65504 and 2^16, which is past the range: ties to even goes up.
  EXPECT_EQ(to_float16(65519.99), 0x7bff);
  EXPECT_EQ(to_float16(65520.0), 0x7c00);
  EXPECT_EQ(to_float16(-1e6), 0xfc00);
  EXPECT_EQ(to_float16(1e300), 0x7c00);
  EXPECT_EQ(to_bfloat16(3.4028234663852886e38), 0x7f80); // FLT_MAX rounds past bfloat16's range
  EXPECT_EQ(to_bfloat16(std::ldexp(255.0, 120)), 0x7f7f);
  EXPECT_EQ(to_bfloat16(1e300), 0x7f80);
}

TEST(source_float16, subnormals_and_zeros) {
  EXPECT_EQ(to_float16(0.0), 0x0000);
  EXPECT_EQ(to_float16(-0.0), 0x8000);
  EXPECT_EQ(to_bfloat16(-0.0), 0x8000);
  EXPECT_EQ(to_float16(std::ldexp(1.0, -24)), 0x0001);              // the smallest subnormal
  EXPECT_EQ(to_float16(std::ldexp(1.0, -25)), 0x0000);              // half of it: a tie, to 0
  EXPECT_EQ(to_float16(std::ldexp(1.0, -25) * (1 + 1e-9)), 0x0001); // just past the tie
  EXPECT_EQ(to_float16(std::ldexp(3.0, -25)), 0x0002);              // 1.5 units: to 2 (even)
  EXPECT_EQ(to_float16(std::ldexp(5.0, -25)), 0x0002);              // 2.5 units: to 2 (even)
  EXPECT_EQ(to_float16(-std::ldexp(1.0, -26)), 0x8000);             // under half a unit
  EXPECT_EQ(to_float16(std::ldexp(1023.0, -24)), 0x03ff);           // the largest subnormal
  EXPECT_EQ(to_float16(std::ldexp(1023.5, -24)), 0x0400);           // up to the smallest normal
  EXPECT_EQ(to_float16(std::ldexp(1.0, -14)), 0x0400);
  EXPECT_EQ(to_float16(5e-324), 0x0000); // a double subnormal
  EXPECT_EQ(to_bfloat16(std::ldexp(1.0, -133)), 0x0001);
  EXPECT_EQ(to_bfloat16(std::ldexp(3.0, -134)), 0x0002);
  EXPECT_EQ(to_bfloat16(static_cast<double>(float_of(0x00000001))), 0x0000); // float's smallest subnormal
  EXPECT_EQ(from_float16(0x8001), -std::ldexp(1.0, -24));
}

// bfloat16 from a float by the usual integer rounding (add 0x7fff plus the lowest kept bit), and
// float16 from the compiler's _Float16 where it has one: neither shares code with the tested one.
TEST(source_float16, agrees_with_independent_conversions_of_floats) {
  std::size_t compared = 0;
  for (std::uint64_t b = 0; b <= 0xffffffffu; b += 65521) { // a prime step: every exponent, many fractions
    for (const std::uint32_t bits : {static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(b) | 0x8000u,
                                     (static_cast<std::uint32_t>(b) & 0xffff0000u) | 0x8000u}) {
      const float f = float_of(bits);
      if (std::isnan(f)) continue;
      const auto bf = static_cast<std::uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
      ASSERT_EQ(to_bfloat16(f), bf) << std::hex << bits;
#ifdef __FLT16_MAX__
      const auto half = static_cast<_Float16>(f);
      std::uint16_t hb = 0;
      std::memcpy(&hb, &half, sizeof hb);
      ASSERT_EQ(to_float16(f), hb) << std::hex << bits;
#endif
      ++compared;
    }
  }
  EXPECT_GT(compared, 190000u);
}

} // namespace
