// Sequential addressing: stride blockDim/2 down to 1, thread tid adds word tid + s; contiguous lanes, no conflict.
#include "kernels/reduction/family.cuh"

namespace bb::reduction {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "sequential",
                              "stride blockDim/2 .. 1: if (tid < s) sdata[tid] += sdata[tid + s]",
                              factory<tree_variant<sequential_tree>>(), tree_access_plan<sequential_tree>);
} // namespace bb::reduction
