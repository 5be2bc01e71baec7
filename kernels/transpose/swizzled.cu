// Storing column j of row i at column j XOR i puts a 32-row column read's lanes in distinct banks,
// unpadded (tile 16: the two half-warps of a block (16, R) warp read neighbouring columns).
#include "kernels/transpose/family.cuh"

namespace bb::transpose {
namespace {
template <int S> struct swizzled_layout {
  static constexpr int k_elements = S * S;
  BB_HD static constexpr int offset(int row, int col) { return row * S + (col ^ row); }
};
} // namespace

BB_REGISTER_VARIANT_WITH_PLAN(family(), "swizzled", "tile[S][S] with column index XOR row",
                              tiled_factory<swizzled_layout>(), tiled_access_plan<swizzled_layout>);
} // namespace bb::transpose
