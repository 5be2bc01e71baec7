// A small kernel that includes a header of its own: the cache key covers the header too.
#include "good_scale.cuh"

template <int Factor> __global__ void scale(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = bb_scale(in[i], Factor) + OFFSET;
}
