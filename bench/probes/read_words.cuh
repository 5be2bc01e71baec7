#pragma once
// A DRAM-bound read for the standalone probes (placement_probe.cu, batch_probe.cu): every 16-byte
// word of `words` once, through L2 only (__ldcg), grid-stride.
#include <cstddef>

#include <cuda_runtime.h>

__global__ void read_words(const uint4* __restrict__ words, std::size_t count, unsigned* sink) {
  unsigned acc = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    const uint4 v = __ldcg(words + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x5eed5eedu) *sink = acc; // never, with zeroed memory: the loads stay
}
