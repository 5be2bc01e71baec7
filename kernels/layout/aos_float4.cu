// The aos_float4 variant: layout_kernel over aos_whole, the array of structs read whole (kernel.cuh).
#include "kernels/layout/family.cuh"

namespace bb::layout {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "aos_float4", "struct {x, y, z, pad} s[256]; each struct read as one float4",
                              factory<aos_whole>(), shared_access_plan<aos_whole>);
} // namespace bb::layout
