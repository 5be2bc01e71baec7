// One float2 per lane: a warp reads two rows per request, each half-warp one row in one wavefront.
#include "kernels/vector/family.cuh"

namespace bb::vector {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "float2", "float2 loads: a warp reads two rows per request", factory<2>(),
                              shared_access_plan<2>);
} // namespace bb::vector
