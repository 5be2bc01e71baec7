// The aos variant: layout_kernel over aos_fields, the array of structs read field by field (kernel.cuh).
#include "kernels/layout/family.cuh"

namespace bb::layout {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "aos",
                              "struct {x, y, z, pad} s[256]; x, y, z read one field per request (4-way)",
                              factory<aos_fields>(), shared_access_plan<aos_fields>);
} // namespace bb::layout
