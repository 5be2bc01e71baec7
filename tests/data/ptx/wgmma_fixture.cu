// The kernels of kernels/wgmma whose PTX tests/unit/test_ptx_wgmma.cpp runs against the family's
// access plans and its A B^T (tests/data/ptx/README.md says how wgmma.ptx was made).
#include "kernels/wgmma/family.cuh"

namespace bb::wgmma {
template __global__ void wgmma_kernel<model::tma_swizzle::none>(const uint4*, std::int64_t, float*);
template __global__ void wgmma_kernel<model::tma_swizzle::b32>(const uint4*, std::int64_t, float*);
template __global__ void wgmma_kernel<model::tma_swizzle::b64>(const uint4*, std::int64_t, float*);
template __global__ void wgmma_kernel<model::tma_swizzle::b128>(const uint4*, std::int64_t, float*);
} // namespace bb::wgmma
