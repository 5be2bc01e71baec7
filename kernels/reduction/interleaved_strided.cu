// Interleaved addressing, strided index 2*s*tid: a warp's lanes sit 2s words apart, 2-, 4-, 8-, 16-way conflicts.
#include "kernels/reduction/family.cuh"

namespace bb::reduction {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "interleaved_strided",
                              "stride 1, 2, 4, ...: index = 2*s*tid; sdata[index] += sdata[index + s]",
                              factory<tree_variant<interleaved_strided_tree>>(),
                              tree_access_plan<interleaved_strided_tree>);
} // namespace bb::reduction
