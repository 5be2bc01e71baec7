#pragma once
// The column_access family's device code: column_kernel and the constants and tile layout it uses,
// with no host-only headers, so its code twin (bench/code_twins/column_access.yaml) compiles it alone.
#include <cstddef>

#include <cuda_runtime.h>

#include "kernels/common/host_device.hpp"

namespace bb::column_access {

inline constexpr int k_lanes = 32;
inline constexpr int k_max_block_rows = 32;

/// Warp `warp` of block (32, block_rows) writes rows warp, warp + block_rows, ... of the tile and
/// then reads the same-numbered columns; lane l takes row l of a column, so a column read is one
/// request whose lanes are a row pitch apart.
template <class Layout> __global__ void __launch_bounds__(k_lanes* k_max_block_rows)
    column_kernel(const float* __restrict__ in, float* __restrict__ out) {
  constexpr int k_side = Layout::k_side;
  __shared__ float tile[Layout::k_words];
  const int lane = static_cast<int>(threadIdx.x);
  const int warp = static_cast<int>(threadIdx.y);
  const int warps = static_cast<int>(blockDim.y);
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * k_side * k_side;
  if (lane < k_side) // lane 31 of a 31-wide tile sits out: a warp-uniform count of 31 active lanes
    for (int r = warp; r < k_side; r += warps) tile[Layout::offset(r, lane)] = in[base + r * k_side + lane];
  __syncthreads();
  if (lane < k_side)
    for (int c = warp; c < k_side; c += warps) out[base + c * k_side + lane] = tile[Layout::offset(lane, c)];
}

/// Row-major tile of `Side` rows of `Pitch` floats; columns Side..Pitch-1 are padding.
template <int Side, int Pitch> struct pitched_layout {
  static_assert(Pitch >= Side, "a row holds at least the tile's side");
  static constexpr int k_side = Side;
  static constexpr int k_pitch = Pitch;
  static constexpr int k_words = Side * Pitch;
  BB_HD static constexpr int offset(int row, int col) { return row * Pitch + col; }
};

} // namespace bb::column_access
