// Halo tile [34][34]: an even pitch puts rows r and r + 16 of a column in one bank (2-way down a column).
#include "kernels/convolution/family.cuh"

namespace bb::convolution {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "unpadded", "halo tile[34][34]; column walks are 2-way",
                              factory<unpadded_layout>(), stencil_access_plan<unpadded_layout>);
} // namespace bb::convolution
