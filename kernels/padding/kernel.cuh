#pragma once
// The padding family's device code: padding_kernel and the constants, element and tile types it
// uses, with no host-only headers, so its code twin (bench/code_twins/padding.yaml) compiles it alone.
#include <cstddef>

#include <cuda_runtime.h>

#include "kernels/common/host_device.hpp"

namespace bb::padding {

inline constexpr int k_rows = 32;   // a column is one element per lane
inline constexpr int k_block = 256; // 8 warps share the tile's columns
inline constexpr int k_warps = k_block / 32;

/// The 12-byte struct people pad to 11 per row; 4-byte aligned, so it moves as three 4-byte words.
struct float3_abc {
  float a, b, c;
};
static_assert(sizeof(float3_abc) == 12, "three packed floats");

/// Tile geometry: element (row, col) of the tile sits `offset(row, col)` elements from its start.
struct tile_shape {
  int cols = 32;
  int pitch = 32;
  BB_HD constexpr int offset(int row, int col) const { return row * pitch + col; }
  BB_HD constexpr int elements() const { return k_rows * cols; }
};

enum class direction { column_read, column_write };

/// column_read: rows of tile t are written from in (row-major 32 x cols, coalesced), then warp w
/// reads columns w, w + 8, ... with lane = row and writes each as a row of out (cols x 32).
/// column_write: warp w reads rows w, w + 8, ... of in (cols x 32) and writes each as column
/// (lane = row) of the tile, whose rows are then read out row-major (32 x cols).
template <class T, direction D> __global__ void __launch_bounds__(k_block)
    padding_kernel(const T* __restrict__ in, T* __restrict__ out, tile_shape s) {
  extern __shared__ __align__(16) unsigned char smem[];
  T* tile = reinterpret_cast<T*>(smem);
  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid % 32, warp = tid / 32;
  const int elements = s.elements();
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * static_cast<std::size_t>(elements);
  if constexpr (D == direction::column_read) {
    for (int e = tid; e < elements; e += k_block) tile[s.offset(e / s.cols, e % s.cols)] = in[base + e];
    __syncthreads();
    for (int c = warp; c < s.cols; c += k_warps) out[base + c * k_rows + lane] = tile[s.offset(lane, c)];
  } else {
    for (int c = warp; c < s.cols; c += k_warps) tile[s.offset(lane, c)] = in[base + c * k_rows + lane];
    __syncthreads();
    for (int e = tid; e < elements; e += k_block) out[base + e] = tile[s.offset(e / s.cols, e % s.cols)];
  }
}

} // namespace bb::padding
