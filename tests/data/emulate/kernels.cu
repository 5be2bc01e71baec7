// Kernels of tests/unit/test_session_model_code.cpp, predicted from their PTX without a GPU.

// A shared-tile copy whose stores go through a 32 x 32 tile read by column: 32-way conflicts on
// the loads unless PAD is 1. `bug` adds 1 to every output (a wrong result the check must catch).
template <int PAD> __global__ void tile_copy(const float* in, float* out, int n, int bug) {
  __shared__ float tile[32][32 + PAD];
  const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) tile[threadIdx.x][threadIdx.y + j] = in[(y + j) * n + x];
  __syncthreads();
  for (int j = 0; j < 32; j += 8) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j] + (float)bug;
}

// The same copy with an instruction the model does not follow before the tile is read.
__global__ void tile_copy_pmevent(const float* in, float* out, int n) {
  __shared__ float tile[32][33];
  const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) tile[threadIdx.x][threadIdx.y + j] = in[(y + j) * n + x];
  __syncthreads();
  asm volatile("pmevent 1;");
  for (int j = 0; j < 32; j += 8) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

// Blocks that differ: block 0 reads its tile by column (32-way), every other block by row.
__global__ void uneven(const float* in, float* out, int n) {
  __shared__ float tile[32][32];
  const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  const bool first = blockIdx.x == 0 && blockIdx.y == 0;
  for (int j = 0; j < 32; j += 8)
    out[(y + j) * n + x] = first ? tile[threadIdx.x][threadIdx.y + j] : tile[threadIdx.y + j][threadIdx.x];
}
