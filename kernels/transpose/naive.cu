// The naive variant: transpose_kernel over naive_layout, the unpadded tile (kernel.cuh).
#include "kernels/transpose/family.cuh"

namespace bb::transpose {

BB_REGISTER_VARIANT_WITH_PLAN(family(), "naive", "tile[S][S]; column reads hit one bank (32-way for float)",
                              tiled_factory<naive_layout>(), tiled_access_plan<naive_layout>);
} // namespace bb::transpose
