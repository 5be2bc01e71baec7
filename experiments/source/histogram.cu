// A 256-bin histogram of bytes with shared-memory atomics: each block counts into BINS * COPIES
// shared counters (COPIES private copies cut the contention of one hot bin), then adds them to
// the global bins. Lanes that hit the same bank but different bins conflict.
#ifndef COPIES
#define COPIES 1
#endif
#define BINS 256

extern "C" __global__ void histogram(const unsigned char* __restrict__ data, unsigned int* __restrict__ bins,
                                     long long n) {
  __shared__ unsigned int counts[BINS * COPIES];
  for (int i = threadIdx.x; i < BINS * COPIES; i += blockDim.x) counts[i] = 0;
  __syncthreads();
  // Copy c of bin b sits at b * COPIES + c: the lanes of a warp spread over COPIES copies.
  const int copy = threadIdx.x % COPIES;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    atomicAdd(&counts[data[i] * COPIES + copy], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
    unsigned int sum = 0;
    for (int c = 0; c < COPIES; ++c) sum += counts[b * COPIES + c];
    if (sum != 0) atomicAdd(&bins[b], sum);
  }
}
