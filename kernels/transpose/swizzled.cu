// The swizzled variant: transpose_kernel over swizzled_layout, column index XOR row (kernel.cuh).
#include "kernels/transpose/family.cuh"

namespace bb::transpose {

BB_REGISTER_VARIANT_WITH_PLAN(family(), "swizzled", "tile[S][S] with column index XOR row",
                              tiled_factory<swizzled_layout>(), tiled_access_plan<swizzled_layout>);
} // namespace bb::transpose
