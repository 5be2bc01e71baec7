#pragma once
/// Inputs from any position-indexed generator, written on the GPU: out[i] = gen(first + i), where
/// gen is a trivially copyable object with a BB_HD operator()(std::uint64_t) that a check calls
/// too, so the two see the same values and no host copy of the input exists.
#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "kernels/common/grid_stride.hpp"
#include "runner/launch/cuda_call.hpp"

namespace bb {

template <class T, class Gen>
__global__ void generate_kernel(T* __restrict__ out, std::size_t count, Gen gen, std::uint64_t first) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
    out[i] = gen(first + i);
}

/// Fills out[0, count) on the default stream and waits, so a failure shows at set-up.
template <class T, class Gen> void generate_device(T* out, std::size_t count, Gen gen, std::uint64_t first = 0) {
  if (count == 0) return;
  constexpr int k_threads = 256;
  generate_kernel<T, Gen><<<grid_stride_blocks(count, k_threads), k_threads>>>(out, count, gen, first);
  BB_CUDA_CALL(cudaGetLastError());
  BB_CUDA_CALL(cudaStreamSynchronize(nullptr));
}

} // namespace bb
