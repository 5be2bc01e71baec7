// Padding each row by one element moves column j of row i to bank (i + j) mod 32 (float; for
// double, to bank pair (i + j) mod 16, which keeps each half-warp's column read conflict-free).
#include "kernels/transpose/family.cuh"
#include "kernels/transpose/padded_layout.cuh"

namespace bb::transpose {

BB_REGISTER_VARIANT_WITH_PLAN(family(), "padded",
                              "tile[S][S + 1]; one element (4 B float, 8 B double) of padding per row",
                              tiled_factory<padded_layout>(), tiled_access_plan<padded_layout>);
} // namespace bb::transpose
