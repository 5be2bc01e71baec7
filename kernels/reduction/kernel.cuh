#pragma once
// The reduction family's device code: tree_kernel (the trees of tree.hpp) and shuffle_kernel with its
// helpers, with no host-only headers, so its code twin (bench/code_twins/reduction.yaml) compiles it alone.
#include <cstdint>

#include <cuda_runtime.h>

#include "kernels/reduction/tree.hpp"

namespace bb::reduction {

/// The shared body of the classic variants: at step k the stride is Tree::stride(k), and every
/// thread with Tree::active adds word target + stride into word target.
template <class Tree> __global__ void __launch_bounds__(1024)
    tree_kernel(const float* __restrict__ in, float* __restrict__ partial, std::int64_t n) {
  extern __shared__ float sdata[];
  const int tid = static_cast<int>(threadIdx.x);
  const int block = static_cast<int>(blockDim.x);
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * block + tid;
  sdata[tid] = i < n ? in[i] : 0.0f; // threads past the end add nothing, but every thread takes part
  __syncthreads();
  const int steps = log2_exact(block);
  for (int step = 0; step < steps; ++step) {
    const int s = Tree::stride(step, block);
    if (Tree::active(tid, s, block)) {
      const int t = Tree::target(tid, s);
      sdata[t] += sdata[t + s];
    }
    __syncthreads();
  }
  if (tid == 0) partial[blockIdx.x] = sdata[0];
}

namespace {

constexpr int k_vectors = 4;                  // float4 loads in flight per thread
constexpr int k_thread_items = 4 * k_vectors; // floats per thread

__device__ float warp_sum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

/// Block b sums elements [b * block * 16, (b + 1) * block * 16): thread tid's k-th vector is
/// float4 number k * block + tid of the block's slice, so each load instruction is coalesced.
__global__ void __launch_bounds__(1024)
    shuffle_kernel(const float* __restrict__ in, float* __restrict__ partial, std::int64_t n) {
  __shared__ float warp_sums[32];
  const int tid = static_cast<int>(threadIdx.x);
  const int block = static_cast<int>(blockDim.x);
  const int lane = tid % 32, warp = tid / 32;
  const std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * block * k_thread_items;
  float4 v[k_vectors];
#pragma unroll
  for (int k = 0; k < k_vectors; ++k) {
    const std::int64_t e = base + 4 * (static_cast<std::int64_t>(k) * block + tid);
    if (e + 3 < n) {
      v[k] = *reinterpret_cast<const float4*>(in + e); // 16-byte aligned: e is a multiple of 4
    } else {
      v[k].x = e < n ? in[e] : 0.0f;
      v[k].y = e + 1 < n ? in[e + 1] : 0.0f;
      v[k].z = e + 2 < n ? in[e + 2] : 0.0f;
      v[k].w = 0.0f;
    }
  }
  float sum = 0.0f;
#pragma unroll
  for (int k = 0; k < k_vectors; ++k) sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
  sum = warp_sum(sum);
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    sum = warp_sum(lane < block / 32 ? warp_sums[lane] : 0.0f);
    if (lane == 0) partial[blockIdx.x] = sum;
  }
}

} // namespace

} // namespace bb::reduction
