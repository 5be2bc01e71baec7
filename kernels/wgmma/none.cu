// interleave without swizzle: 8x16-byte core matrices, LBO 128 (along K), SBO 256 (8-row groups), K = 16.
#include "kernels/wgmma/family.cuh"

namespace bb::wgmma {
BB_REGISTER_VARIANT_WITH_PLAN(
    family(), "none",
    "interleave without swizzle: 8x16-byte core matrices, LBO 128 (along K), SBO 256 (8-row groups), K = 16",
    factory<model::tma_swizzle::none>(), shared_access_plan<model::tma_swizzle::none>);
} // namespace bb::wgmma
