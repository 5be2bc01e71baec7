#pragma once
/// IEEE binary16 (float16, CUDA's __half) and bfloat16 (__nv_bfloat16) on the host: conversions
/// from double rounded to nearest, ties to even, as the GPU's __float2half_rn and
/// __float2bfloat16_rn round a float (a float is exactly a double, so there is no double rounding).
/// Values past the largest finite become infinity; NaN becomes the type's quiet NaN with its sign;
/// subnormals are kept. No CUDA headers.
#include <cstdint>

namespace bb::source {

/// `v` rounded to the nearest float16 (1 sign, 5 exponent, 10 fraction bits), ties to even.
std::uint16_t to_float16(double v);

/// `v` rounded to the nearest bfloat16 (1 sign, 8 exponent, 7 fraction bits), ties to even.
std::uint16_t to_bfloat16(double v);

/// The value of float16 bits `h` (exact).
double from_float16(std::uint16_t h);

/// The value of bfloat16 bits `b` (exact).
double from_bfloat16(std::uint16_t b);

} // namespace bb::source
