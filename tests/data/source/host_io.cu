// A file with its own host code (a small test driver) beside the kernel: NVRTC cannot open
// <iostream>, nvcc compiles it.
#include <iostream>

__global__ void twice(float* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= 2.0f;
}

void print_usage() { std::cout << "twice: doubles every element\n"; }
