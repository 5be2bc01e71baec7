// TMA 64B swizzle (Swizzle<2,4,3>): chunk bits XOR address bits 7-8.
#include "kernels/tma/family.cuh"

namespace bb::tma {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "sw64", "TMA 64B swizzle (Swizzle<2,4,3>): chunk bits XOR address bits 7-8",
                              factory<model::tma_swizzle::b64>(), shared_access_plan<model::tma_swizzle::b64>);
} // namespace bb::tma
