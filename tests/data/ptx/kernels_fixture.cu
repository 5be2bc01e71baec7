// The kernels of kernels/ldmatrix and kernels/cp_async whose PTX tests/unit/test_ptx_warp.cpp runs
// against the families' access plans (tests/data/ptx/README.md says how kernels.ptx was made).
#include "kernels/cp_async/family.cuh"
#include "kernels/ldmatrix/family.cuh"

namespace bb {
template __global__ void ldmatrix::ldmatrix_kernel<tile_128::pitched<128>, 4, false>(const std::uint32_t*,
                                                                                     std::uint32_t*);
template __global__ void ldmatrix::ldmatrix_kernel<tile_128::pitched<144>, 2, true>(const std::uint32_t*,
                                                                                    std::uint32_t*);
template __global__ void ldmatrix::ldmatrix_kernel<tile_128::pitched<128>, 1, false>(const std::uint32_t*,
                                                                                     std::uint32_t*);
template __global__ void cp_async::cp_async_kernel<tile_128::pitched<128>, cp_async::order::columns, true>(const float*,
                                                                                                           float*);
template __global__ void cp_async::cp_async_kernel<tile_128::pitched<128>, cp_async::order::rows, false>(const float*,
                                                                                                         float*);
} // namespace bb
