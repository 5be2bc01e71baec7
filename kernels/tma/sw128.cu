// TMA 128B swizzle (Swizzle<3,4,3>): chunk k of row r at k XOR (r mod 8).
#include "kernels/tma/family.cuh"

namespace bb::tma {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "sw128",
                              "TMA 128B swizzle (Swizzle<3,4,3>): chunk k of row r at k XOR (r mod 8)",
                              factory<model::tma_swizzle::b128>(), shared_access_plan<model::tma_swizzle::b128>);
} // namespace bb::tma
