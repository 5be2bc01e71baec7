// Unpadded tile[32][32]: column j of every row sits in bank j, so a column read is 32-way.
#include "transpose/family.cuh"

namespace bb::transpose {
namespace {
struct naive_layout {
  static constexpr int k_words = k_tile * k_tile;
  __host__ __device__ static constexpr int offset(int row, int col) { return row * k_tile + col; }
};
} // namespace

BB_REGISTER_VARIANT_WITH_PLAN(family(), "naive", "tile[32][32]; column reads hit one bank (32-way)",
                              factory<naive_layout>(), shared_access_plan<naive_layout>);
} // namespace bb::transpose
