// Halo tile [34][35]: an odd pitch sends the 32 rows of any column to 32 different banks.
#include "kernels/convolution/family.cuh"

namespace bb::convolution {
BB_REGISTER_VARIANT_WITH_PLAN(family(), "padded", "halo tile[34][35]; one word of padding per row",
                              factory<padded_layout>(), stencil_access_plan<padded_layout>);
} // namespace bb::convolution
