// 128-byte rows: the 8 rows of each matrix share one 16-byte bank group, 8 wavefronts per matrix.
#include "kernels/ldmatrix/family.cuh"

namespace bb::ldmatrix {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "unpadded", "b16 tile[32][64]: 128-byte rows", factory<pitched<128>>(),
                              shared_access_plan<pitched<128>>);
} // namespace bb::ldmatrix
