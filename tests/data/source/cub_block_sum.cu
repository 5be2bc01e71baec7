// CUB's umbrella header brings device-wide algorithms with host launch code, which NVRTC cannot
// compile: `compiler: auto` compiles this file with nvcc.
#include <cub/cub.cuh>

template <int Threads> __global__ void block_sum(const int* in, int* out) {
  using reduce = cub::BlockReduce<int, Threads>;
  __shared__ typename reduce::TempStorage storage;
  const int total = reduce(storage).Sum(in[blockIdx.x * Threads + threadIdx.x]);
  if (threadIdx.x == 0) out[blockIdx.x] = total;
}
