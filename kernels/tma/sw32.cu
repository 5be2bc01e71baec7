// TMA 32B swizzle (Swizzle<1,4,3>): chunk bit 0 XOR row bit 2 of 32-byte rows.
#include "kernels/tma/family.cuh"

namespace bb::tma {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "sw32",
                              "TMA 32B swizzle (Swizzle<1,4,3>): chunk bit 0 XOR row bit 2 of 32-byte rows",
                              factory<model::tma_swizzle::b32>(), shared_access_plan<model::tma_swizzle::b32>);
} // namespace bb::tma
