#pragma once
/// Seeded inputs written on the GPU: out[i] = T(uniform_at(seed, first + i)), the same values the
/// host helpers give, at memory bandwidth and with no host copy of the input.
#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "common/uniform.hpp"
#include "launch/cuda_call.hpp"

namespace bb {

template <class T>
__global__ void fill_uniform_kernel(T* __restrict__ out, std::size_t count, std::uint64_t seed, std::uint64_t first) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
    out[i] = static_cast<T>(host::uniform_at(seed, first + i));
}

/// Fills out[0, count) on `stream` and waits for it, so a failure shows at set-up, not in a launch.
template <class T>
void fill_uniform_device(T* out, std::size_t count, std::uint64_t seed, std::uint64_t first = 0,
                         cudaStream_t stream = nullptr) {
  if (count == 0) return;
  constexpr int k_threads = 256;
  const std::size_t wanted = (count + k_threads - 1) / k_threads;
  const int blocks = static_cast<int>(wanted < 65536 ? wanted : 65536);
  fill_uniform_kernel<T><<<blocks, k_threads, 0, stream>>>(out, count, seed, first);
  BB_CUDA_CALL(cudaGetLastError());
  BB_CUDA_CALL(cudaStreamSynchronize(stream));
}

} // namespace bb
