// Unpadded tile[S][S]: column j of every row sits in one bank, so a column read is 32-way
// (float, tiles 32 and 64) or 16-way per half-warp (double).
#include "kernels/transpose/family.cuh"

namespace bb::transpose {
namespace {
template <int S> struct naive_layout {
  static constexpr int k_elements = S * S;
  BB_HD static constexpr int offset(int row, int col) { return row * S + col; }
};
} // namespace

BB_REGISTER_VARIANT_WITH_PLAN(family(), "naive", "tile[S][S]; column reads hit one bank (32-way for float)",
                              tiled_factory<naive_layout>(), tiled_access_plan<naive_layout>);
} // namespace bb::transpose
