#pragma once
// The ldmatrix family's device code: ldmatrix_kernel and the constants, vector types and layouts it
// uses, with no host-only headers, so its code twin (bench/code_twins/ldmatrix.yaml) compiles it alone.
#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "kernels/common/tile_128.hpp"

namespace bb::ldmatrix {

inline constexpr int k_rows = tile_128::k_rows;           ///< tile rows
inline constexpr int k_row_bytes = tile_128::k_row_bytes; ///< data bytes per row: 64 b16 values, 8 chunks of 16 bytes
inline constexpr int k_row_words = k_row_bytes / 4;
inline constexpr int k_tile_words = k_rows * k_row_words; ///< 1024 words in, 1024 words out per tile

/// The stored vector of W = 4N bytes per lane: uint32, uint2 or uint4.
template <int N> struct lane_vector;
template <> struct lane_vector<1> { using type = std::uint32_t; };
template <> struct lane_vector<2> { using type = uint2; };
template <> struct lane_vector<4> { using type = uint4; };

template <int N, bool Trans> __device__ void load_matrices(std::uint32_t addr, std::uint32_t* r) {
  if constexpr (N == 1 && !Trans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n" : "=r"(r[0]) : "r"(addr));
  if constexpr (N == 1 && Trans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n" : "=r"(r[0]) : "r"(addr));
  if constexpr (N == 2 && !Trans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(addr));
  if constexpr (N == 2 && Trans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(addr));
  if constexpr (N == 4 && !Trans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
  if constexpr (N == 4 && Trans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

/// One block of 32 threads per tile: the fill (step s, lane l stores W-byte vector s*32 + l of the
/// tile in row order), then every ldmatrix instruction of the tile.
template <class Layout, int N, bool Trans> __global__ void __launch_bounds__(32)
    ldmatrix_kernel(const std::uint32_t* __restrict__ in, std::uint32_t* __restrict__ out) {
  using vec = typename lane_vector<N>::type;
  constexpr int k_lane_bytes = 4 * N;
  constexpr int k_steps = k_rows * k_row_bytes / (32 * k_lane_bytes);
  __shared__ __align__(128) unsigned char tile[Layout::k_bytes];
  const int lane = static_cast<int>(threadIdx.x);
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * k_tile_words;
  const vec* src = reinterpret_cast<const vec*>(in + base);
#pragma unroll
  for (int s = 0; s < k_steps; ++s) {
    const int q = s * 32 + lane, byte = q * k_lane_bytes;
    *reinterpret_cast<vec*>(tile + Layout::offset(byte / k_row_bytes, byte % k_row_bytes)) = src[q];
  }
  __syncwarp();
  const auto shared_base = static_cast<std::uint32_t>(__cvta_generic_to_shared(tile));
  constexpr int k_instructions = k_rows / N;
  std::uint32_t* dst = out + static_cast<std::size_t>(blockIdx.x) * k_tile_words;
#pragma unroll
  for (int in_tile = 0; in_tile < k_instructions; ++in_tile) {
    const int g = in_tile / 8, k = in_tile % 8;
    const int row = g * 8 * N + lane % (8 * N); // lanes past 8N repeat valid rows; ldmatrix ignores them
    std::uint32_t r[N];
    load_matrices<N, Trans>(shared_base + static_cast<std::uint32_t>(Layout::offset(row, 16 * k)), r);
#pragma unroll
    for (int j = 0; j < N; ++j) dst[(in_tile * N + j) * 32 + lane] = r[j];
  }
}

using tile_128::pitched;
using tile_128::swizzle_343;

} // namespace bb::ldmatrix
