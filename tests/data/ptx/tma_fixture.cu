// The kernels of kernels/tma whose PTX tests/unit/test_ptx_tma.cpp runs against the family's access
// plans and its copy (tests/data/ptx/README.md says how tma.ptx was made).
#include "kernels/tma/family.cuh"

namespace bb::tma {
template __global__ void tma_kernel<32, model::tma_swizzle::none>(const __grid_constant__ CUtensorMap, float*);
template __global__ void tma_kernel<128, model::tma_swizzle::none>(const __grid_constant__ CUtensorMap, float*);
template __global__ void tma_kernel<32, model::tma_swizzle::b32>(const __grid_constant__ CUtensorMap, float*);
template __global__ void tma_kernel<64, model::tma_swizzle::b64>(const __grid_constant__ CUtensorMap, float*);
template __global__ void tma_kernel<128, model::tma_swizzle::b128>(const __grid_constant__ CUtensorMap, float*);
} // namespace bb::tma
