// Rows padded by 16 bytes (144-byte pitch): row r starts in bank group r mod 8, one wavefront per matrix.
#include "kernels/ldmatrix/family.cuh"

namespace bb::ldmatrix {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "padded", "b16 tile[32][72]: rows padded by 16 bytes", factory<pitched<144>>(),
                              shared_access_plan<pitched<144>>);
} // namespace bb::ldmatrix
