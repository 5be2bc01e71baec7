#pragma once
// The convolution family's sizes and index functions, shared by the kernels (nvcc), the access
// plans and the host tests (the C++ compiler alone). No CUDA or standard headers: kernel.cuh
// includes it.
#include "kernels/common/host_device.hpp"

namespace bb::convolution {

inline constexpr int k_tile = 32;         // outputs per block along each axis
inline constexpr int k_halo = k_tile + 2; // tile rows and columns with the one-cell halo
inline constexpr int k_block_rows = 8;    // block (32, 8): each thread computes 4 outputs
inline constexpr int k_threads = k_tile * k_block_rows;

/// Tap (dy, dx) of the binomial blur [1 2 1; 2 4 2; 1 2 1] / 16: powers of two, so every product is
/// exact and the CPU reproduces the kernel bit for bit when it adds in the same order.
BB_HD constexpr float weight(int dy, int dx) {
  return static_cast<float>(1 << (2 - (dy == 1 ? 0 : 1) - (dx == 1 ? 0 : 1))) / 16.0f;
}

/// A tile cell (row, col), 0..33, with the image pixel it holds.
struct cell {
  int row = -1, col = -1; ///< row < 0: this thread stores nothing in this pass
};

/// The load passes: pass p < 4 stores interior row ty + 8p + 1 (lane = column); pass 4 stores the
/// halo: warp 0 the top row, warp 1 the bottom row, warp 2 the left column, warp 3 the right
/// column (lane = row: the stores that walk down a column), warp 4's lanes 0-3 the corners.
inline constexpr int k_load_passes = 5;
BB_HD constexpr cell load_cell(int pass, int tx, int ty) {
  if (pass < 4) return {ty + k_block_rows * pass + 1, tx + 1};
  switch (ty) {
  case 0: return {0, tx + 1};
  case 1: return {k_halo - 1, tx + 1};
  case 2: return {tx + 1, 0};
  case 3: return {tx + 1, k_halo - 1};
  case 4: return tx < 4 ? cell{(tx >> 1) * (k_halo - 1), (tx & 1) * (k_halo - 1)} : cell{};
  default: return {};
  }
}

/// The output cell (0..31) thread (tx, ty) computes in pass j = 0..3.
BB_HD constexpr cell output_cell(int j, int tx, int ty, bool column_walk) {
  const int other = ty + k_block_rows * j;
  return column_walk ? cell{tx, other} : cell{other, tx};
}

} // namespace bb::convolution
