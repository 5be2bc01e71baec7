// Storing column j of row i at column j XOR i puts a column read's 32 lanes in 32 banks, unpadded.
#include "transpose/family.cuh"

namespace bb::transpose {
namespace {
struct swizzled_layout {
  static constexpr int k_words = k_tile * k_tile;
  __host__ __device__ static constexpr int offset(int row, int col) { return row * k_tile + (col ^ row); }
};
} // namespace

BB_REGISTER_VARIANT_WITH_PLAN(family(), "swizzled", "tile[32][32] with column index XOR row",
                              factory<swizzled_layout>(), shared_access_plan<swizzled_layout>);
} // namespace bb::transpose
