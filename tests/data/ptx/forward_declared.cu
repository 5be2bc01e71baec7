// A kernel with an extern __shared__ array whose address a module variable takes, as bankbench's
// nvcc wrapper does: nvcc then writes a declaration of the entry (`.entry name(...);`) and the
// `.extern .shared` array before the entry's definition.
extern __shared__ float forward_smem[];

__global__ void forward_declared(const float* in, float* out) {
  forward_smem[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = forward_smem[(threadIdx.x * 2) % blockDim.x];
}

__device__ void* forward_declared_address = (void*)&forward_declared;
