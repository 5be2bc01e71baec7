#include "runner/source/float16.hpp"

#include <cmath>
#include <cstring>

namespace bb::source {

namespace {

// A binary format with `E` exponent and `M` fraction bits, from a double: the 53-bit significand
// shifted right to M bits (more for subnormals), the dropped bits deciding the rounding.
template <int E, int M> std::uint16_t round_to(double v) {
  constexpr int bias = (1 << (E - 1)) - 1;
  constexpr std::uint32_t inf = ((1u << E) - 1) << M;
  std::uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  const auto sign = static_cast<std::uint32_t>(bits >> 63) << (E + M);
  const int exponent = static_cast<int>((bits >> 52) & 0x7ff);
  const std::uint64_t fraction = bits & ((std::uint64_t{1} << 52) - 1);
  if (exponent == 0x7ff) // infinity, or NaN made quiet
    return static_cast<std::uint16_t>(sign | inf | (fraction != 0 ? 1u << (M - 1) : 0));
  if (exponent == 0) return static_cast<std::uint16_t>(sign); // zero, or a double subnormal: far below either
  const int target = exponent - 1023 + bias;                  // the biased exponent in the target format
  if (target >= (1 << E)) return static_cast<std::uint16_t>(sign | inf);
  const std::uint64_t significand = fraction | (std::uint64_t{1} << 52);
  int shift = 52 - M + (target < 1 ? 1 - target : 0);
  if (shift > 54) shift = 54; // everything shifted out: below half the smallest subnormal
  std::uint64_t q = significand >> shift;
  const std::uint64_t rest = significand & ((std::uint64_t{1} << shift) - 1);
  const std::uint64_t half = std::uint64_t{1} << (shift - 1);
  if (rest > half || (rest == half && (q & 1) != 0)) ++q;
  // Normal: the implicit bit in q adds one to (target - 1), and a carry out of the fraction
  // raises the exponent by itself; subnormal: q is the fraction (2^M is the smallest normal).
  const std::uint64_t magnitude = target >= 1 ? (static_cast<std::uint64_t>(target - 1) << M) + q : q;
  return static_cast<std::uint16_t>(sign | (magnitude >= inf ? inf : static_cast<std::uint32_t>(magnitude)));
}

template <int E, int M> double value_of(std::uint16_t b) {
  constexpr int bias = (1 << (E - 1)) - 1;
  const bool negative = (b >> (E + M)) != 0;
  const int exponent = (b >> M) & ((1 << E) - 1);
  const int fraction = b & ((1 << M) - 1);
  double v = 0;
  if (exponent == (1 << E) - 1)
    v = fraction != 0 ? std::nan("") : INFINITY;
  else if (exponent == 0)
    v = std::ldexp(fraction, 1 - bias - M);
  else
    v = std::ldexp(fraction + (1 << M), exponent - bias - M);
  return negative ? -v : v;
}

} // namespace

std::uint16_t to_float16(double v) { return round_to<5, 10>(v); }
std::uint16_t to_bfloat16(double v) { return round_to<8, 7>(v); }
double from_float16(std::uint16_t h) { return value_of<5, 10>(h); }
double from_bfloat16(std::uint16_t b) { return value_of<8, 7>(b); }

} // namespace bb::source
