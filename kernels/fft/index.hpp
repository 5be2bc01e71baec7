#pragma once
// The fft family's sizes and index functions, shared by the kernels (nvcc), the access plans and
// the host tests (the C++ compiler alone). No CUDA or standard headers: kernel.cuh includes it.
// The kernel runs the constant-geometry (Pease) radix-2 decimation in frequency: every stage pairs
// elements j and j + 256 and writes 2j, 2j + 1.
#include "kernels/common/host_device.hpp"

namespace bb::fft {

inline constexpr int k_points = 512;
inline constexpr int k_log_points = 9;
inline constexpr int k_threads = k_points / 2; // one butterfly per thread per stage

/// The 9-bit reversal of i: where the Pease stages leave X[i].
BB_HD constexpr int bit_reverse(int i) {
  int r = 0;
  for (int b = 0; b < k_log_points; ++b) r |= ((i >> b) & 1) << (k_log_points - 1 - b);
  return r;
}

/// Stage s's butterfly j: reads elements j and j + 256, writes elements 2j and 2j + 1, and
/// multiplies the difference by W_512^twiddle_exponent(s, j), W_N = exp(-2 pi i / N).
BB_HD constexpr int read_first(int j) { return j; }
BB_HD constexpr int read_second(int j) { return j + k_points / 2; }
BB_HD constexpr int write_first(int j) { return 2 * j; }
BB_HD constexpr int write_second(int j) { return 2 * j + 1; }
BB_HD constexpr int twiddle_exponent(int stage, int j) { return (j >> stage) << stage; }

} // namespace bb::fft
