#pragma once
// The vector family's device code: vector_kernel and the tile sizes, vector types and tile shape it
// uses, with no host-only headers, so its code twin (bench/code_twins/vector.yaml) compiles it alone.
#include <cstddef>

#include <cuda_runtime.h>

#include "kernels/common/host_device.hpp"

namespace bb::vector {

inline constexpr int k_side = 32;
inline constexpr int k_tile_floats = k_side * k_side;
inline constexpr int k_block = 256;

template <int V> struct vec;
template <> struct vec<1> { using type = float; };
template <> struct vec<2> { using type = float2; };
template <> struct vec<4> { using type = float4; };

/// Element (row, col) of the shared tile sits offset(row, col) floats from its start.
struct tile_shape {
  int pitch = 32;
  BB_HD constexpr int offset(int row, int col) const { return row * pitch + col; }
};

/// Thread tid stores floats tid, tid + 256, ... of the tile (a warp: one row), then loads vectors
/// tid, tid + 256, ... (a warp: 32 x V consecutive floats, 32 / V lanes per row).
template <int V> __global__ void __launch_bounds__(k_block)
    vector_kernel(const float* __restrict__ in, float* __restrict__ out, tile_shape s) {
  using vec_t = typename vec<V>::type;
  extern __shared__ __align__(16) float tile[];
  const int tid = static_cast<int>(threadIdx.x);
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * k_tile_floats;
  for (int e = tid; e < k_tile_floats; e += k_block) tile[s.offset(e / k_side, e % k_side)] = in[base + e];
  __syncthreads();
  for (int v = tid; v < k_tile_floats / V; v += k_block) {
    const int e = v * V;
    *reinterpret_cast<vec_t*>(out + base + e) = *reinterpret_cast<const vec_t*>(tile +
                                                                                s.offset(e / k_side, e % k_side));
  }
}

} // namespace bb::vector
