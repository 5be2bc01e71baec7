// 32B swizzle (Swizzle<1,4,3>): 32-byte rows, K = 16, SBO 256.
#include "kernels/wgmma/family.cuh"

namespace bb::wgmma {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "sw32", "32B swizzle (Swizzle<1,4,3>): 32-byte rows, K = 16, SBO 256",
                              factory<model::tma_swizzle::b32>(), shared_access_plan<model::tma_swizzle::b32>);
} // namespace bb::wgmma
