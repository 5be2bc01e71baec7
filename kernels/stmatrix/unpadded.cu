// 128-byte rows: the 8 rows of each matrix share one 16-byte bank group, 8 wavefronts per matrix.
#include "kernels/stmatrix/family.cuh"

namespace bb::stmatrix {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "unpadded", "b16 tile[32][64]: 128-byte rows",
                              factory<ldmatrix::pitched<128>>(), shared_access_plan<ldmatrix::pitched<128>>);
} // namespace bb::stmatrix
