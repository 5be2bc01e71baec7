// A block sum as written for nvcc, with standard headers: NVRTC compiles it through bankbench's
// header layer. The reference for cub_block_sum.cu's CUB version.
#include <cassert>
#include <cstdint>
#include <cstdio>
#include <type_traits>

template <int Threads> __global__ void plain_block_sum(const std::int32_t* in, std::int32_t* out) {
  static_assert(std::is_same<std::int32_t, int>::value, "int is 32 bits");
  static_assert((Threads & (Threads - 1)) == 0, "a power of two");
  __shared__ std::int32_t partial[Threads];
  assert(blockDim.x == Threads);
  partial[threadIdx.x] = in[blockIdx.x * Threads + threadIdx.x];
  __syncthreads();
  for (int half = Threads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
  if (blockIdx.x == gridDim.x) printf("unreachable: block %u\n", blockIdx.x);
}
