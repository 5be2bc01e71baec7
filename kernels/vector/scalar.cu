// One float per lane: a warp reads one 128-byte row, one word from each bank, in one wavefront.
#include "kernels/vector/family.cuh"

namespace bb::vector {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "scalar", "float loads: a warp reads one row per request", factory<1>(),
                              shared_access_plan<1>);
} // namespace bb::vector
