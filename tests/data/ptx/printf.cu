// Device printf and assert (tests/unit/test_ptx_tma.cpp, PtxCall): calls the interpreter follows.
#include <cassert>
#include <cstdio>

__global__ void report(const int* in, int* out) {
  __shared__ int s[32];
  s[threadIdx.x] = in[threadIdx.x];
  __syncwarp();
  if (threadIdx.x == 0) printf("block %d: s[1] = %d\n", blockIdx.x, s[1]);
  assert(s[threadIdx.x] >= 0);
  out[threadIdx.x] = s[(threadIdx.x + 1) % 32];
}
