// Padding each row by one word moves column j of row i to bank (i + j) mod 32.
#include "transpose/family.cuh"

namespace bb::transpose {
namespace {
struct padded_layout {
  static constexpr int k_words = k_tile * (k_tile + 1);
  __host__ __device__ static constexpr int offset(int row, int col) { return row * (k_tile + 1) + col; }
};
} // namespace

BB_REGISTER_VARIANT_WITH_PLAN(family(), "padded", "tile[32][33]; one word of padding per row",
                              factory<padded_layout>(), shared_access_plan<padded_layout>);
} // namespace bb::transpose
