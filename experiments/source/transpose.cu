// out = in^T for an n x n float matrix through one shared tile of side S per block of
// (min(S, 32), R) threads: the same kernel as kernels/transpose, as a plain CUDA file.
// Layouts: naive tile[S][S] (column reads hit one bank), padded tile[S][S + 1] (column j of row i
// in bank (i + j) mod 32) and swizzled (column j of row i stored at column j ^ i).

template <int S> struct naive {
  static constexpr int elements = S * S;
  __device__ static int at(int row, int col) { return row * S + col; }
};
template <int S> struct padded {
  static constexpr int elements = S * (S + 1);
  __device__ static int at(int row, int col) { return row * (S + 1) + col; }
};
template <int S> struct swizzled {
  static constexpr int elements = S * S;
  __device__ static int at(int row, int col) { return row * S + (col ^ row); }
};

template <template <int> class Layout, int S, int R>
__global__ void __launch_bounds__((S < 32 ? S : 32) * R) transpose(const float* __restrict__ in,
                                                                  float* __restrict__ out, int n) {
  constexpr int cols = S < 32 ? S : 32;
  __shared__ float tile[Layout<S>::elements];
  const int tx = threadIdx.x, ty = threadIdx.y;
  int x = blockIdx.x * S + tx, y = blockIdx.y * S + ty;
#pragma unroll
  for (int j = 0; j < S; j += R)
#pragma unroll
    for (int i = 0; i < S; i += cols)
      if (x + i < n && y + j < n) tile[Layout<S>::at(ty + j, tx + i)] = in[(size_t)(y + j) * n + x + i];
  __syncthreads();
  x = blockIdx.y * S + tx;
  y = blockIdx.x * S + ty;
#pragma unroll
  for (int j = 0; j < S; j += R)
#pragma unroll
    for (int i = 0; i < S; i += cols)
      if (x + i < n && y + j < n) out[(size_t)(y + j) * n + x + i] = tile[Layout<S>::at(tx + i, ty + j)];
}

// The reference the other layouts are checked against: the same blocks, no shared memory.
template <int S, int R> __global__ void transpose_direct(const float* __restrict__ in, float* __restrict__ out, int n) {
  constexpr int cols = S < 32 ? S : 32;
  const int x = blockIdx.x * S + threadIdx.x, y = blockIdx.y * S + threadIdx.y;
  for (int j = 0; j < S; j += R)
    for (int i = 0; i < S; i += cols)
      if (x + i < n && y + j < n) out[(size_t)(x + i) * n + y + j] = in[(size_t)(y + j) * n + x + i];
}
