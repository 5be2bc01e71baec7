// no swizzle: 8 rows of one 16-byte chunk share a bank group when rows are 128 bytes.
#include "kernels/tma/family.cuh"

namespace bb::tma {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "none",
                              "no swizzle: 8 rows of one 16-byte chunk share a bank group when rows are 128 bytes",
                              factory<model::tma_swizzle::none>(), shared_access_plan<model::tma_swizzle::none>);
} // namespace bb::tma
