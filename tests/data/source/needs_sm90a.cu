// wgmma exists only on the arch-specific target: compiled for sm_90a.
__global__ void fence_only(int* out) {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  out[threadIdx.x] = 1;
}
