// 64B swizzle (Swizzle<2,4,3>): 64-byte rows, K = 32 (2 wgmma), SBO 512.
#include "kernels/wgmma/family.cuh"

namespace bb::wgmma {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "sw64", "64B swizzle (Swizzle<2,4,3>): 64-byte rows, K = 32 (2 wgmma), SBO 512",
                              factory<model::tma_swizzle::b64>(), shared_access_plan<model::tma_swizzle::b64>);
} // namespace bb::wgmma
