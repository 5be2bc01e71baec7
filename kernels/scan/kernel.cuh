#pragma once
// The scan family's device code: the Blelloch and Hillis-Steele kernels and the Blelloch layouts,
// with no host-only headers, so its code twin (bench/code_twins/scan.yaml) compiles it alone.
#include <cstdint>

#include "kernels/scan/index.hpp"

namespace bb::scan {

/// Blelloch's scan of 1024 elements by 512 threads; Layout maps a logical element to its word and
/// says which two elements thread t loads and stores (first(t), second(t)).
template <class Layout> __global__ void __launch_bounds__(k_elements / 2)
    blelloch_kernel(const std::uint32_t* __restrict__ in, std::uint32_t* __restrict__ out, std::int64_t n) {
  __shared__ std::uint32_t temp[Layout::k_words];
  const int t = static_cast<int>(threadIdx.x);
  const std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * k_elements;
  const int a = Layout::first(t), b = Layout::second(t);
  temp[Layout::offset(a)] = base + a < n ? in[base + a] : 0u;
  temp[Layout::offset(b)] = base + b < n ? in[base + b] : 0u;
  for (int level = 0; level < k_log_elements; ++level) { // up-sweep: partial sums into a tree
    __syncthreads();
    if (t < sweep_threads(level)) {
      const int offset = 1 << level;
      const int ai = Layout::offset(sweep_ai(t, offset)), bi = Layout::offset(sweep_bi(t, offset));
      temp[bi] += temp[ai];
    }
  }
  if (t == 0) temp[Layout::offset(k_elements - 1)] = 0u;      // clear the root
  for (int level = k_log_elements - 1; level >= 0; --level) { // down-sweep
    __syncthreads();
    if (t < sweep_threads(level)) {
      const int offset = 1 << level;
      const int ai = Layout::offset(sweep_ai(t, offset)), bi = Layout::offset(sweep_bi(t, offset));
      const std::uint32_t left = temp[ai], right = temp[bi];
      temp[ai] = right;
      temp[bi] = right + left;
    }
  }
  __syncthreads();
  if (base + a < n) out[base + a] = temp[Layout::offset(a)];
  if (base + b < n) out[base + b] = temp[Layout::offset(b)];
}

namespace {
// Blelloch work-efficient scan, unpadded: at sweep level k lanes sit 2^(k+1) words apart, up to 32-way.
struct plain_layout {
  static constexpr int k_words = k_elements;
  __host__ __device__ static constexpr int offset(int i) { return i; }
  // GPU Gems 3, listing 39-1: thread t loads elements 2t and 2t + 1 (2-way on its own).
  __host__ __device__ static constexpr int first(int t) { return 2 * t; }
  __host__ __device__ static constexpr int second(int t) { return 2 * t + 1; }
};

// Blelloch with conflict-free offsets: element i at word i + i / 32 spreads every level's lanes over 32 banks.
struct padded_layout {
  static constexpr int k_words = k_elements + k_elements / 32;
  __host__ __device__ static constexpr int offset(int i) { return i + i / 32; }
  // GPU Gems 3, listing 39-2: thread t loads elements t and t + 512, contiguous across a warp.
  __host__ __device__ static constexpr int first(int t) { return t; }
  __host__ __device__ static constexpr int second(int t) { return t + k_elements / 2; }
};

// Hillis-Steele, double-buffered: 1024 threads add the element offset = 1, 2, ..., 512 back; contiguous, no conflict.
__global__ void __launch_bounds__(k_elements)
    hillis_steele_kernel(const std::uint32_t* __restrict__ in, std::uint32_t* __restrict__ out, std::int64_t n) {
  __shared__ std::uint32_t temp[2 * k_elements];
  const int t = static_cast<int>(threadIdx.x);
  const std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * k_elements;
  // Exclusive: element t starts as input t - 1.
  temp[hs_word(0, t)] = t > 0 && base + t - 1 < n ? in[base + t - 1] : 0u;
  int pout = 0;
  for (int offset = 1; offset < k_elements; offset *= 2) {
    __syncthreads();
    const int pin = pout;
    pout = 1 - pout;
    std::uint32_t v = temp[hs_word(pin, t)];
    if (t >= offset) v += temp[hs_word(pin, t - offset)];
    temp[hs_word(pout, t)] = v;
  }
  __syncthreads();
  if (base + t < n) out[base + t] = temp[hs_word(pout, t)];
}
} // namespace

} // namespace bb::scan
