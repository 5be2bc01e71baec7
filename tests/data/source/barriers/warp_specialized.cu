// A warp-specialized kernel: warpgroup 1 produces two shared tiles, warpgroup 0 consumes them,
// synchronised by named barriers for part of the CTA (bar.arrive / bar.sync a, b), the pattern of
// producer / consumer kernels such as CUTLASS's: tile 0 ready (barrier 1), tile 0 read (2), tile 1
// ready (3), then the consumers alone (barrier 4 for 128 threads, its number and count in registers,
// as cutlass::arch::NamedBarrier passes them) rewrite tile 1 among themselves. `plain` computes the
// same output without shared memory, for the check.
__device__ inline void sync_named(unsigned id, unsigned threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

__global__ void specialized(const float* in, float* out) {
  __shared__ float tile[2][128];
  const unsigned t = threadIdx.x;
  if (t >= 128) { // producers
    const unsigned p = t - 128;
    tile[0][p] = in[p] * 2.0f;
    asm volatile("bar.arrive 1, 256;" ::: "memory");
    asm volatile("bar.sync 2, 256;" ::: "memory");
    tile[1][p] = in[128 + p] + 1.0f;
    asm volatile("bar.arrive 3, 256;" ::: "memory");
    return;
  }
  asm volatile("bar.sync 1, 256;" ::: "memory");
  const float v = tile[0][127 - t];
  asm volatile("bar.arrive 2, 256;" ::: "memory");
  asm volatile("bar.sync 3, 256;" ::: "memory");
  const float w = tile[1][(t * 4) % 128];
  sync_named(4, 128);
  tile[1][t] = w * 3.0f;
  sync_named(4, 128);
  out[t] = v + tile[1][127 - t];
}

__global__ void plain(const float* in, float* out) {
  const unsigned t = threadIdx.x;
  if (t < 128) out[t] = in[127 - t] * 2.0f + 3.0f * (in[128 + ((127 - t) * 4) % 128] + 1.0f);
}
