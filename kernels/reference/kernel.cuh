#pragma once
// The reference family's device code: copy_kernel and its constants, with no host-only headers,
// so its code twin (bench/code_twins/reference.yaml) compiles it alone.
#include <cstddef>

#include <cuda_runtime.h>

namespace bb::reference {
namespace {

constexpr int k_threads = 256;
constexpr int k_unroll = 4; // independent 16-byte loads each thread issues before its stores

__global__ void __launch_bounds__(k_threads)
    copy_kernel(const uint4* __restrict__ in, uint4* __restrict__ out, std::size_t vectors,
                const unsigned char* __restrict__ in_tail, unsigned char* __restrict__ out_tail, int tail) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (k_unroll - 1) * stride < vectors; i += k_unroll * stride) {
    uint4 v[k_unroll];
#pragma unroll
    for (int k = 0; k < k_unroll; ++k) v[k] = in[i + k * stride];
#pragma unroll
    for (int k = 0; k < k_unroll; ++k) out[i + k * stride] = v[k];
  }
  for (; i < vectors; i += stride) out[i] = in[i];
  // The last bytes % 16 bytes, one per thread of block 0.
  if (blockIdx.x == 0 && static_cast<int>(threadIdx.x) < tail) out_tail[threadIdx.x] = in_tail[threadIdx.x];
}

} // namespace
} // namespace bb::reference
