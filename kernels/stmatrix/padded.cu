// Rows padded by 16 bytes (144-byte pitch): row r starts in bank group r mod 8, one wavefront per matrix.
#include "kernels/stmatrix/family.cuh"

namespace bb::stmatrix {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "padded", "b16 tile[32][72]: rows padded by 16 bytes",
                              factory<ldmatrix::pitched<144>>(), shared_access_plan<ldmatrix::pitched<144>>);
} // namespace bb::stmatrix
