// __syncthreads_count, __syncthreads_and and __syncthreads_or (bar.red): the count of positive
// inputs in the block picks the tile's row stride, so the block's bank conflicts follow from the
// reduction (an even count: a stride of 32 words, every lane of a warp in one bank; odd: 33, none).
extern "C" __global__ void reduced(const int* in, int* out) {
  __shared__ int tile[32 * 33];
  const int t = threadIdx.x;
  const int v = in[blockIdx.x * 256 + t];
  const int n = __syncthreads_count(v > 0);
  const int all = __syncthreads_and(v + (int)blockIdx.x > -4);
  const int any = __syncthreads_or(v > 6 + (int)blockIdx.x % 2);
  const int stride = n % 2 == 0 ? 32 : 33;
  tile[(t % 32) * stride + t / 32] = v + n;
  __syncthreads();
  out[blockIdx.x * 256 + t] = tile[(t % 32) * stride + t / 32] + 10 * all + 100 * any;
}

// The same values from plain loops over the block's inputs in global memory.
extern "C" __global__ void plain(const int* in, int* out) {
  const int base = blockIdx.x * 256;
  int n = 0, all = 1, any = 0;
  for (int i = 0; i < 256; ++i) {
    const int w = in[base + i];
    n += w > 0;
    all &= w + (int)blockIdx.x > -4;
    any |= w > 6 + (int)blockIdx.x % 2;
  }
  out[base + threadIdx.x] = in[base + threadIdx.x] + n + 10 * all + 100 * any;
}
