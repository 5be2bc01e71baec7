// CuTe Swizzle<3,4,3> (TMA 128B): chunk k of row r stored at chunk k XOR (r mod 8), unpadded.
#include "kernels/stmatrix/family.cuh"

namespace bb::stmatrix {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "swizzled", "b16 tile[32][64] with Swizzle<3,4,3>",
                              factory<ldmatrix::swizzle_343>(), shared_access_plan<ldmatrix::swizzle_343>);
} // namespace bb::stmatrix
