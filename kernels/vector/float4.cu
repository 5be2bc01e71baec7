// One float4 per lane: a warp reads four rows per request, each quarter-warp one row: a quarter of the requests, the same wavefronts.
#include "kernels/vector/family.cuh"

namespace bb::vector {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "float4", "float4 loads: a warp reads four rows per request", factory<4>(),
                              shared_access_plan<4>);
} // namespace bb::vector
