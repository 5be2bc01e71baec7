#pragma once
// The transpose family's device code: its kernels and the tile layouts and helpers they use, with no
// host-only headers, so its code twin (bench/code_twins/transpose.yaml) compiles it alone.
#include <cstddef>
#include <type_traits>

#include <cuda_runtime.h>

#include "kernels/common/host_device.hpp"
#include "kernels/transpose/padded_layout.cuh"

namespace bb::transpose {

/// Threads along a tile row: a warp's lanes for tiles of 32 and 64, half a warp for tile 16.
BB_HD constexpr int block_cols(int tile) { return tile < 32 ? tile : 32; }

/// The shared body: rows of the tile are written from coalesced global reads, then columns of
/// the tile are read for coalesced global writes; Layout decides which banks those columns hit.
/// Thread (tx, ty) moves columns tx, tx + 32, ... of rows ty, ty + R, ... of the tile.
template <class Layout, class T, int S, int R> __global__ void __launch_bounds__(block_cols(S) * R)
    transpose_kernel(const T* __restrict__ in, T* __restrict__ out, int n) {
  constexpr int k_cols = block_cols(S);
  __shared__ T tile[Layout::k_elements];
  const int tx = static_cast<int>(threadIdx.x);
  const int ty = static_cast<int>(threadIdx.y);
  int x = static_cast<int>(blockIdx.x) * S + tx;
  int y = static_cast<int>(blockIdx.y) * S + ty;
#pragma unroll
  for (int j = 0; j < S; j += R)
#pragma unroll
    for (int i = 0; i < S; i += k_cols)
      if (x + i < n && y + j < n)
        tile[Layout::offset(ty + j, tx + i)] = in[static_cast<std::size_t>(y + j) * n + x + i];
  __syncthreads();
  x = static_cast<int>(blockIdx.y) * S + tx;
  y = static_cast<int>(blockIdx.x) * S + ty;
#pragma unroll
  for (int j = 0; j < S; j += R)
#pragma unroll
    for (int i = 0; i < S; i += k_cols)
      if (x + i < n && y + j < n)
        out[static_cast<std::size_t>(y + j) * n + x + i] = tile[Layout::offset(tx + i, ty + j)];
}

namespace {

// Unpadded tile[S][S]: column j of every row sits in one bank, so a column read is 32-way
// (float, tiles 32 and 64) or 16-way per half-warp (double).
template <int S> struct naive_layout {
  static constexpr int k_elements = S * S;
  BB_HD static constexpr int offset(int row, int col) { return row * S + col; }
};

// Storing column j of row i at column j XOR i puts a 32-row column read's lanes in distinct banks,
// unpadded (tile 16: the two half-warps of a block (16, R) warp read neighbouring columns).
template <int S> struct swizzled_layout {
  static constexpr int k_elements = S * S;
  BB_HD static constexpr int offset(int row, int col) { return row * S + (col ^ row); }
};

BB_HD inline void unpack(const float4& v, float* e) { e[0] = v.x, e[1] = v.y, e[2] = v.z, e[3] = v.w; }
BB_HD inline void unpack(const double2& v, double* e) { e[0] = v.x, e[1] = v.y; }
BB_HD inline float4 pack(const float* e) { return make_float4(e[0], e[1], e[2], e[3]); }
BB_HD inline double2 pack(const double* e) { return make_double2(e[0], e[1]); }

/// How a block of (block_cols(S), R) threads covers an S x S tile with 16-byte vectors. The tile
/// is cut into units of 4 rows x 8 vectors (32 vectors, one per lane: lane = 8 * row + vector);
/// warp w takes units w, w + warps, ... Row phase: unit u holds tile rows 4 * (u / blocks) + lane / 8,
/// vectors 8 * (u % blocks) + lane % 8. Column phase: the same unit of the output tile, whose row
/// is a tile column and whose vector is k_vec consecutive tile rows.
template <class T, int S, int R> struct wide_shape {
  using vec = std::conditional_t<std::is_same_v<T, double>, double2, float4>;
  static constexpr int k_vec = 16 / sizeof(T);   // elements per 16-byte vector
  static constexpr int k_blocks = S / k_vec / 8; // units side by side along a tile row
  static constexpr int k_units = (S / 4) * k_blocks;
  static constexpr int k_warps = block_cols(S) * R / 32;
  static constexpr int k_passes = k_units / k_warps;
  static constexpr bool k_valid = k_blocks >= 1 && k_passes >= 1 && k_passes * k_warps == k_units;
  BB_HD static constexpr int row(int unit, int lane) { return unit / k_blocks * 4 + lane / 8; }
  BB_HD static constexpr int first_col(int unit, int lane) { return (unit % k_blocks * 8 + lane % 8) * k_vec; }
};

/// Vector: n % k_vec == 0, so every row starts 16-byte aligned and a vector is wholly inside the
/// matrix or wholly outside. Otherwise each element is loaded and stored on its own (edges only
/// differ); the shared accesses are the same either way.
template <class T, int S, int R, bool Vector> __global__ void __launch_bounds__(block_cols(S) * R)
    wide_kernel(const T* __restrict__ in, T* __restrict__ out, int n) {
  using shape = wide_shape<T, S, R>;
  using layout = padded_layout<S>;
  constexpr int k_vec = shape::k_vec;
  __shared__ T tile[layout::k_elements];
  const int t = static_cast<int>(threadIdx.y * blockDim.x + threadIdx.x);
  const int lane = t % 32, warp = t / 32;
  const int bx = static_cast<int>(blockIdx.x) * S, by = static_cast<int>(blockIdx.y) * S;
  T v[shape::k_passes][k_vec];
#pragma unroll
  for (int p = 0; p < shape::k_passes; ++p) { // every load issued before the first shared store
    const int unit = warp + p * shape::k_warps;
    const int y = by + shape::row(unit, lane), x = bx + shape::first_col(unit, lane);
    if (y < n && x < n) {
      const T* src = in + static_cast<std::size_t>(y) * n + x;
      if constexpr (Vector) {
        unpack(*reinterpret_cast<const typename shape::vec*>(src), v[p]);
      } else {
#pragma unroll
        for (int e = 0; e < k_vec; ++e) v[p][e] = x + e < n ? src[e] : T(0);
      }
    }
  }
#pragma unroll
  for (int p = 0; p < shape::k_passes; ++p) {
    const int unit = warp + p * shape::k_warps;
    const int r = shape::row(unit, lane), c = shape::first_col(unit, lane);
    if (by + r < n && bx + c < n)
#pragma unroll
      for (int e = 0; e < k_vec; ++e) tile[layout::offset(r, c + e)] = v[p][e];
  }
  __syncthreads();
#pragma unroll
  for (int p = 0; p < shape::k_passes; ++p) {
    const int unit = warp + p * shape::k_warps;
    const int r = shape::row(unit, lane), c = shape::first_col(unit, lane); // output row, first output column
    if (bx + r < n && by + c < n)
#pragma unroll
      for (int e = 0; e < k_vec; ++e) v[p][e] = tile[layout::offset(c + e, r)];
  }
#pragma unroll
  for (int p = 0; p < shape::k_passes; ++p) {
    const int unit = warp + p * shape::k_warps;
    const int y = bx + shape::row(unit, lane), x = by + shape::first_col(unit, lane);
    if (y < n && x < n) {
      T* dst = out + static_cast<std::size_t>(y) * n + x;
      if constexpr (Vector) {
        *reinterpret_cast<typename shape::vec*>(dst) = pack(v[p]);
      } else {
#pragma unroll
        for (int e = 0; e < k_vec; ++e)
          if (x + e < n) dst[e] = v[p][e];
      }
    }
  }
}

} // namespace

} // namespace bb::transpose
