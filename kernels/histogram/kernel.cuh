#pragma once
// The histogram family's device code: histogram_kernel, its bin layouts, key patterns and constants,
// with no host-only headers, so its code twin (bench/code_twins/histogram.yaml) compiles it alone.
#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "kernels/common/host_device.hpp"

namespace bb::histogram {

inline constexpr int k_bins = 32;
inline constexpr int k_threads = 256;
inline constexpr int k_warps = k_threads / 32;

/// Key of element i: the 32 lanes of a request (32 consecutive i) hit 32 distinct bins
/// (7 * lane is a permutation mod 32), rotated by the request's index.
struct distinct_keys {
  BB_HD static constexpr std::uint32_t key(std::uint64_t i) {
    return static_cast<std::uint32_t>((i * 7 + i / 32) % k_bins);
  }
};
/// Every lane of a request hits one bin: same address, not only same bank.
struct same_keys {
  BB_HD static constexpr std::uint32_t key(std::uint64_t i) { return static_cast<std::uint32_t>((i / 32) % k_bins); }
};

template <class Layout, class Keys> __global__ void __launch_bounds__(k_threads)
    histogram_kernel(const std::uint32_t* __restrict__ keys, std::uint32_t* out, int items, std::size_t n) {
  __shared__ std::uint32_t bins[Layout::k_words];
  const int tid = static_cast<int>(threadIdx.x), warp = tid / 32, lane = tid % 32;
  // A fixed number of rounds for every warp: a loop on `w < k_words` let the compiler split the
  // last, partial round into an unrolled body and a remainder that warp 7 of one_bank ran both of
  // (35 stores per block on an H100 where 32 are needed).
  constexpr int k_rounds = (Layout::k_words + k_threads - 1) / k_threads;
#pragma unroll
  for (int r = 0; r < k_rounds; ++r)
    if (const int w = r * k_threads + tid; w < Layout::k_words) bins[w] = 0;
  __syncthreads();
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * k_threads * static_cast<std::size_t>(items);
  for (int it = 0; it < items; ++it) {
    const std::size_t i = base + static_cast<std::size_t>(it) * k_threads + static_cast<std::size_t>(tid);
    if (i < n) atomicAdd(&bins[Layout::word(warp, static_cast<int>(keys[i]))], 1u);
  }
  __syncthreads();
  if (warp != 0) return;
  std::uint32_t sum = 0;
  for (int copy = 0; copy < Layout::k_copies; ++copy) sum += bins[Layout::word(copy, lane)];
  atomicAdd(&out[lane], sum);
}

/// Bin b at word Stride * b, shared by every warp: Stride 32 puts every bin in bank 0, 33 in bank b.
template <int Stride> struct shared_bins {
  static constexpr int k_words = Stride * (k_bins - 1) + 1;
  static constexpr int k_copies = 1;
  BB_HD static constexpr int word(int, int bin) { return Stride * bin; }
};

/// One 32-word copy per warp: bin b of warp w at word 32w + b; warp 0 sums the 8 copies.
struct per_warp_bins {
  static constexpr int k_words = k_warps * k_bins;
  static constexpr int k_copies = k_warps;
  BB_HD static constexpr int word(int warp, int bin) { return warp * k_bins + bin; }
};

} // namespace bb::histogram
