// 128B swizzle (Swizzle<3,4,3>): 128-byte rows, K = 64 (4 wgmma), SBO 1024.
#include "kernels/wgmma/family.cuh"

namespace bb::wgmma {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "sw128",
                              "128B swizzle (Swizzle<3,4,3>): 128-byte rows, K = 64 (4 wgmma), SBO 1024",
                              factory<model::tma_swizzle::b128>(), shared_access_plan<model::tma_swizzle::b128>);
} // namespace bb::wgmma
