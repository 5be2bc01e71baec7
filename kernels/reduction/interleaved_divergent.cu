// Interleaved addressing, divergent branch: only threads with tid % (2s) == 0 work; busy warps, no bank conflict.
#include "kernels/reduction/family.cuh"

namespace bb::reduction {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "interleaved_divergent",
                              "stride 1, 2, 4, ...: if (tid % (2*s) == 0) sdata[tid] += sdata[tid + s]",
                              factory<tree_variant<interleaved_divergent_tree>>(),
                              tree_access_plan<interleaved_divergent_tree>);
} // namespace bb::reduction
