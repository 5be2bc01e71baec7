// Every lane reads the same element: one word, served to the whole warp at once (broadcast).
#include "kernels/stride/family.cuh"

namespace bb::stride {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "broadcast", "all 32 lanes load s[0]", factory<32>(), shared_access_plan<32>);
} // namespace bb::stride
