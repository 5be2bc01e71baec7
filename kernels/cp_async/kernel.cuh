#pragma once
// The cp_async family's device code: cp_async_kernel and the constants, copy orders and layouts it
// uses, with no host-only headers, so its code twin (bench/code_twins/cp_async.yaml) compiles it alone.
#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "kernels/common/host_device.hpp"
#include "kernels/common/tile_128.hpp"

namespace bb::cp_async {

inline constexpr int k_rows = tile_128::k_rows;
inline constexpr int k_row_bytes = tile_128::k_row_bytes;
inline constexpr int k_chunks = k_row_bytes / 16;              ///< 16-byte chunks per row
inline constexpr int k_tile_floats = k_rows * k_row_bytes / 4; ///< 1024
inline constexpr int k_steps = k_rows * k_chunks / 32;         ///< copies per lane: 8

/// Which chunk lane `lane` copies at step s, and where it goes. rows: a row's 8 chunks per
/// quarter-warp (source and destination alike); columns: chunk s of row `lane`, so a quarter-warp
/// reads 8 global lines and writes 8 rows of one chunk; scatter: the source is read row-wise
/// (chunk q = 32 s + lane, 4 global lines per instruction) and stored at row q mod 32, chunk
/// q / 32, so a quarter-warp's destinations share a bank group while its sources are coalesced.
enum class order { rows, columns, scatter };

struct chunk_at {
  int row, chunk;
};
/// The source chunk (global row, chunk) of copy s by `lane`.
template <order O> BB_HD constexpr chunk_at source_of(int s, int lane) {
  if constexpr (O == order::columns) return {lane, s};
  const int q = s * 32 + lane;
  return {q / k_chunks, q % k_chunks};
}
/// Where the chunk at (global row, chunk) lives in the tile, before the layout.
template <order O> BB_HD constexpr chunk_at place_of(chunk_at src) {
  if constexpr (O == order::scatter) {
    const int q = src.row * k_chunks + src.chunk;
    return {q % k_rows, q / k_rows};
  }
  return src;
}

template <bool Cg> __device__ void copy16(std::uint32_t dst, const void* src) {
  if constexpr (Cg)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
}

template <class Layout, order O, bool Cg> __global__ void __launch_bounds__(32)
    cp_async_kernel(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ __align__(128) unsigned char tile[Layout::k_bytes];
  const int lane = static_cast<int>(threadIdx.x);
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * k_tile_floats;
  const auto shared_base = static_cast<std::uint32_t>(__cvta_generic_to_shared(tile));
#pragma unroll
  for (int s = 0; s < k_steps; ++s) {
    const chunk_at src = source_of<O>(s, lane), dst = place_of<O>(src);
    copy16<Cg>(shared_base + static_cast<std::uint32_t>(Layout::offset(dst.row, 16 * dst.chunk)),
               in + base + static_cast<std::size_t>(src.row) * (k_row_bytes / 4) + 4 * src.chunk);
  }
  asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;\n" ::: "memory");
  __syncwarp();
  float4* dst = reinterpret_cast<float4*>(out + base);
#pragma unroll
  for (int s = 0; s < k_steps; ++s) {
    const int q = s * 32 + lane;
    const chunk_at at = place_of<O>({q / k_chunks, q % k_chunks});
    dst[q] = *reinterpret_cast<const float4*>(tile + Layout::offset(at.row, 16 * at.chunk));
  }
}

using tile_128::pitched;
using tile_128::swizzle_343;

} // namespace bb::cp_async
