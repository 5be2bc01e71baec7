// CuTe Swizzle<3,4,3> (TMA 128B): chunk k of row r stored at chunk k XOR (r mod 8), unpadded.
#include "kernels/ldmatrix/family.cuh"

namespace bb::ldmatrix {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "swizzled", "b16 tile[32][64] with Swizzle<3,4,3>", factory<swizzle_343>(),
                              shared_access_plan<swizzle_343>);
} // namespace bb::ldmatrix
