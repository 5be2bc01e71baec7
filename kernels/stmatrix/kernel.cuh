#pragma once
// The stmatrix family's device code: stmatrix_kernel and what it uses (the ldmatrix family's tile
// constants and vector types), with no host-only headers, so its code twin
// (bench/code_twins/stmatrix.yaml) compiles it alone.
#include <cstddef>
#include <cstdint>

#include "kernels/ldmatrix/kernel.cuh"

namespace bb::stmatrix {

using ldmatrix::k_row_bytes;
using ldmatrix::k_rows;
using ldmatrix::k_tile_words;

template <int N> __device__ void store_matrices(std::uint32_t addr, const std::uint32_t* r) {
  if constexpr (N == 1)
    asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};\n" ::"r"(addr), "r"(r[0]) : "memory");
  if constexpr (N == 2)
    asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};\n" ::"r"(addr), "r"(r[0]), "r"(r[1])
                 : "memory");
  if constexpr (N == 4)
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "r"(r[0]), "r"(r[1]),
                 "r"(r[2]), "r"(r[3])
                 : "memory");
}

template <class Layout, int N> __global__ void __launch_bounds__(32)
    stmatrix_kernel(const std::uint32_t* __restrict__ in, std::uint32_t* __restrict__ out) {
  using vec = typename ldmatrix::lane_vector<N>::type;
  constexpr int k_lane_bytes = 4 * N;
  constexpr int k_steps = k_rows * k_row_bytes / (32 * k_lane_bytes);
  __shared__ __align__(128) unsigned char tile[Layout::k_bytes];
  const int lane = static_cast<int>(threadIdx.x);
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * k_tile_words;
  const auto shared_base = static_cast<std::uint32_t>(__cvta_generic_to_shared(tile));
#pragma unroll
  for (int in_tile = 0; in_tile < k_rows / N; ++in_tile) {
    const int g = in_tile / 8, k = in_tile % 8;
    const int row = g * 8 * N + lane % (8 * N);
    std::uint32_t r[N];
#pragma unroll
    for (int j = 0; j < N; ++j) r[j] = in[base + static_cast<std::size_t>((in_tile * N + j) * 32 + lane)];
    store_matrices<N>(shared_base + static_cast<std::uint32_t>(Layout::offset(row, 16 * k)), r);
  }
  __syncwarp();
  vec* dst = reinterpret_cast<vec*>(out + base);
#pragma unroll
  for (int s = 0; s < k_steps; ++s) {
    const int q = s * 32 + lane, byte = q * k_lane_bytes;
    dst[q] = *reinterpret_cast<const vec*>(tile + Layout::offset(byte / k_row_bytes, byte % k_row_bytes));
  }
}

} // namespace bb::stmatrix
