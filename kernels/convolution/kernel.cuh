#pragma once
// The convolution family's device code: stencil_kernel and the halo tiles' layouts, with no
// host-only headers, so its code twin (bench/code_twins/convolution.yaml) compiles it alone.
#include <cuda_runtime.h>

#include "kernels/convolution/index.hpp"

namespace bb::convolution {

__device__ inline float pixel(const float* __restrict__ in, int n, int y, int x) {
  return y >= 0 && y < n && x >= 0 && x < n ? in[y * n + x] : 0.0f;
}

template <class Layout, bool ColumnWalk> __global__ void __launch_bounds__(k_threads)
    stencil_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[Layout::k_words];
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int y0 = static_cast<int>(blockIdx.y) * k_tile - 1; // image row of tile row 0
  const int x0 = static_cast<int>(blockIdx.x) * k_tile - 1;
  // Cells outside the image are stored as zeros, so every block makes the same shared requests.
#pragma unroll
  for (int pass = 0; pass < k_load_passes; ++pass) {
    const cell c = load_cell(pass, tx, ty);
    if (c.row >= 0) tile[Layout::offset(c.row, c.col)] = pixel(in, n, y0 + c.row, x0 + c.col);
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < k_tile / k_block_rows; ++j) {
    const cell o = output_cell(j, tx, ty, ColumnWalk);
    float acc = 0.0f;
#pragma unroll
    for (int dy = 0; dy < 3; ++dy)
#pragma unroll
      for (int dx = 0; dx < 3; ++dx)
        acc = __fadd_rn(acc, __fmul_rn(weight(dy, dx), tile[Layout::offset(o.row + dy, o.col + dx)]));
    const int y = y0 + 1 + o.row, x = x0 + 1 + o.col;
    if (y < n && x < n) out[y * n + x] = acc;
  }
}

namespace {
// Halo tile [34][34]: an even pitch puts rows r and r + 16 of a column in one bank (2-way down a column).
struct unpadded_layout {
  static constexpr int k_pitch = k_halo;
  static constexpr int k_words = k_halo * k_pitch;
  __host__ __device__ static constexpr int offset(int row, int col) { return row * k_pitch + col; }
};

// Halo tile [34][35]: an odd pitch sends the 32 rows of any column to 32 different banks.
struct padded_layout {
  static constexpr int k_pitch = k_halo + 1;
  static constexpr int k_words = k_halo * k_pitch;
  __host__ __device__ static constexpr int offset(int row, int col) { return row * k_pitch + col; }
};
} // namespace

} // namespace bb::convolution
