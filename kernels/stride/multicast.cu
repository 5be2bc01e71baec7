// Lanes 2g and 2g + 1 read the same element g * stride: a word asked for twice is served once (multicast).
#include "kernels/stride/family.cuh"

namespace bb::stride {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "multicast", "lanes 2g and 2g + 1 load s[g * stride]", factory<2>(),
                              shared_access_plan<2>);
} // namespace bb::stride
