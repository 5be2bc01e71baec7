#pragma once
/// Number formats of the PTX interpreter: widths, sign extension, the float types (f16, bf16,
/// f32, f64) and conversions with PTX's rounding modes. No CUDA headers.
#include <algorithm>
#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <string>

#include "runner/ptx/program.hpp"

namespace bb::ptx {

// Inlined by force: the interpreter runs them for nearly every instruction, and its loop is too
// large for the compiler to inline them of its own accord.
[[gnu::always_inline]] inline std::uint64_t mask_of(int bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

[[gnu::always_inline]] inline std::int64_t sext(std::uint64_t v, int bits) {
  if (bits >= 64) return static_cast<std::int64_t>(v);
  const std::uint64_t sign = 1ull << (bits - 1);
  return static_cast<std::int64_t>(((v & mask_of(bits)) ^ sign) - sign);
}

/// A float of `mantissa` stored bits, exponent `bias`, as a double.
inline double small_float(std::uint64_t v, int mantissa, int exponent_bits) {
  const int bias = (1 << (exponent_bits - 1)) - 1;
  const bool negative = (v >> (mantissa + exponent_bits) & 1) != 0;
  const auto field = static_cast<int>(v >> mantissa & ((1u << exponent_bits) - 1));
  const auto m = static_cast<double>(v & ((1ull << mantissa) - 1));
  double d = 0;
  if (field == (1 << exponent_bits) - 1)
    d = m == 0 ? INFINITY : NAN;
  else if (field == 0)
    d = std::ldexp(m, 1 - bias - mantissa);
  else
    d = std::ldexp(m + std::ldexp(1.0, mantissa), field - bias - mantissa);
  return negative ? -d : d;
}

/// Rounds `d` to an integer: 1 to nearest even, 2 toward zero, 3 down, 4 up.
inline double round_integer(double d, int mode) {
  switch (mode) {
  case 2: return std::trunc(d);
  case 3: return std::floor(d);
  case 4: return std::ceil(d);
  default: return std::nearbyint(d); // to nearest, ties to even
  }
}

/// `d` rounded into a float of `mantissa` stored bits (f16: 10, 5; bf16: 7, 8), its bits.
inline std::uint64_t to_small_float(double d, int mantissa, int exponent_bits, int mode) {
  const int bias = (1 << (exponent_bits - 1)) - 1, max_field = (1 << exponent_bits) - 1;
  const std::uint64_t sign = std::signbit(d) ? 1ull << (mantissa + exponent_bits) : 0;
  if (std::isnan(d)) return (static_cast<std::uint64_t>(max_field) << mantissa) | (1ull << (mantissa - 1));
  const double a = std::fabs(d);
  const std::uint64_t inf = sign | static_cast<std::uint64_t>(max_field) << mantissa;
  if (std::isinf(a)) return inf;
  if (a == 0) return sign;
  int e = 0;
  (void)std::frexp(a, &e);
  int q = std::max(e - 1, 1 - bias) - mantissa; // the value of the last mantissa bit
  // rounding the magnitude: down toward zero for rz, and for rm / rp on the side away from them
  const int magnitude_mode = mode == 3 ? (sign != 0 ? 4 : 2) : mode == 4 ? (sign != 0 ? 2 : 4) : mode;
  auto rounded = static_cast<std::uint64_t>(round_integer(std::ldexp(a, -q), magnitude_mode));
  if (rounded == 2ull << mantissa) {
    rounded = 1ull << mantissa;
    ++q;
  }
  if (rounded < (1ull << mantissa)) return sign | rounded; // subnormal (or zero)
  const int field = q + mantissa + bias;
  if (field >= max_field) return magnitude_mode == 2 ? inf - 1 : inf;
  return sign | static_cast<std::uint64_t>(field) << mantissa | (rounded - (1ull << mantissa));
}

inline double to_double(std::uint64_t v, value_type t) {
  switch (t.cls) {
  case type_class::f16: return small_float(v, 10, 5);
  case type_class::bf16: return small_float(v, 7, 8);
  case type_class::e5m2: return small_float(v, 2, 5);
  case type_class::e4m3: // no infinity: only S.1111.111 is NaN, the rest of exponent 15 are numbers
    if ((v & 0x7f) == 0x7f) return NAN;
    return (v & 0x78) == 0x78 ? ((v & 0x80) != 0 ? -1.0 : 1.0) * std::ldexp(8.0 + static_cast<double>(v & 7), 5)
                              : small_float(v, 3, 4);
  case type_class::tf32: return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(v) & ~0x1fffu));
  default:
    return t.bits == 32 ? static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(v)))
                        : std::bit_cast<double>(v);
  }
}

/// The bits of `d` in float type `t`, rounded by `mode` (1 nearest even, 2 zero, 3 down, 4 up).
/// `d` as an e4m3 or e5m2 byte, saturated to the largest finite value (448, 57344) as PTX's
/// .satfinite (which every conversion to them carries); NaN gives 0x7f.
inline std::uint64_t to_fp8(double d, bool e4m3, int mode) {
  if (std::isnan(d)) return 0x7f;
  const std::uint64_t sign = std::signbit(d) ? 0x80 : 0;
  const double a = std::min(std::fabs(d), e4m3 ? 448.0 : 57344.0);
  if (!e4m3) return sign | to_small_float(a, 2, 5, mode);
  // e4m3 has no infinity: exponent 15 holds 256 .. 448 in steps of 32 (0x78 .. 0x7e)
  if (a >= 256.0) return sign | (0x78 + static_cast<std::uint64_t>(round_integer(a / 32.0, mode)) - 8);
  return sign | to_small_float(a, 3, 4, mode); // a value rounded up to 256 comes out as 0x78, 256 in e4m3
}

inline std::uint64_t from_double(double d, value_type t, int mode) {
  switch (t.cls) {
  case type_class::f16: return to_small_float(d, 10, 5, mode);
  case type_class::bf16: return to_small_float(d, 7, 8, mode);
  case type_class::e4m3: return to_fp8(d, true, mode);
  case type_class::e5m2: return to_fp8(d, false, mode);
  default: break;
  }
  if (t.bits == 64) return std::bit_cast<std::uint64_t>(d);
  if (mode <= 1) return std::bit_cast<std::uint32_t>(static_cast<float>(d));
  const int old = std::fegetround();
  std::fesetround(mode == 2 ? FE_TOWARDZERO : mode == 3 ? FE_DOWNWARD : FE_UPWARD);
  const volatile double in = d;
  const float f = static_cast<float>(in);
  std::fesetround(old);
  return std::bit_cast<std::uint32_t>(f);
}

/// cvt from a float to an integer type: rounded (mode 5 rni, 6 rzi, 7 rmi, 8 rpi; 0 toward
/// zero), clamped to the type's range, NaN as 0.
inline std::uint64_t float_to_integer(double d, value_type dst, int mode) {
  if (std::isnan(d)) return 0;
  const double r = round_integer(d, mode >= 5 ? mode - 4 : mode == 0 ? 2 : mode);
  if (dst.cls == type_class::sint) {
    const double lo = -std::ldexp(1.0, dst.bits - 1), hi = std::ldexp(1.0, dst.bits - 1);
    if (r <= lo) return static_cast<std::uint64_t>(std::int64_t{-1} << (dst.bits - 1));
    if (r >= hi) return mask_of(dst.bits - 1);
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(r));
  }
  if (r <= 0) return 0;
  if (r >= std::ldexp(1.0, dst.bits)) return mask_of(dst.bits);
  return static_cast<std::uint64_t>(r);
}

inline std::string hex(std::uint64_t v) {
  static const char* k_digits = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), k_digits[v & 15]);
    v >>= 4;
  } while (v != 0);
  return s;
}

} // namespace bb::ptx
