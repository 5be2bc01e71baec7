#pragma once
// The colsum family's device code: colsum_kernel, the matrix shape and constants it uses and the
// variants' patterns, with no host-only headers, so its code twin (bench/code_twins/colsum.yaml)
// compiles it alone.
#include <cstdint>

#include <cuda_runtime.h>

#include "kernels/common/host_device.hpp"
#include "kernels/common/shared_load.cuh"

namespace bb::colsum {

inline constexpr int k_side = 32;
inline constexpr int k_matrix_floats = k_side * k_side;
inline constexpr int k_warps = 8; // matrices per block, one per warp
inline constexpr int k_block = 32 * k_warps;

/// Element (row, col) of a warp's matrix sits offset(row, col) floats from its start.
struct matrix_shape {
  int pitch = 32;
  BB_HD constexpr int offset(int row, int col) const { return row * pitch + col; }
};

/// Warp w of block b owns matrix 8b + w: it stores the matrix row by row (lane = column), then
/// thread t adds Pattern::element(t, i) for i = 0..31 in order, one LDS per step.
template <class Pattern> __global__ void __launch_bounds__(k_block)
    colsum_kernel(const float* __restrict__ in, float* __restrict__ out, matrix_shape s, std::int64_t tiles) {
  extern __shared__ __align__(16) float smem[];
  const int lane = static_cast<int>(threadIdx.x) % 32, warp = static_cast<int>(threadIdx.x) / 32;
  const std::int64_t m = static_cast<std::int64_t>(blockIdx.x) * k_warps + warp;
  if (m >= tiles) return; // warp-uniform; no block-wide barrier follows
  float* data = smem + warp * k_side * s.pitch;
  const float* src = in + m * k_matrix_floats;
  for (int r = 0; r < k_side; ++r) data[s.offset(r, lane)] = src[r * k_side + lane];
  __syncwarp(); // the matrix is the warp's own: its lanes read what other lanes of it wrote
  float sum = 0.0f;
  for (int i = 0; i < k_side; ++i) {
    const int2 rc = Pattern::element(lane, i);
    sum += smem::load(data + s.offset(rc.x, rc.y));
  }
  out[m * k_side + lane] = sum;
}

namespace {

// Thread t sums column t: at step i the warp reads row i, 32 consecutive words in 32 banks, whatever the pitch.
struct column_per_thread {
  BB_HD static constexpr int2 element(int thread, int step) { return {step, thread}; } // (row, col)
};

// Thread t sums row t: at step i the warp reads column i, words a pitch apart: one bank at pitch 32 (32-way), all 32 at pitch 33.
struct row_per_thread {
  BB_HD static constexpr int2 element(int thread, int step) { return {thread, step}; } // (row, col)
};

} // namespace

} // namespace bb::colsum
