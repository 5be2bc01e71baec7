// Halo tile [34][35]: an odd pitch sends the 32 rows of any column to 32 different banks.
#include "kernels/convolution/family.cuh"

namespace bb::convolution {
namespace {
struct padded_layout {
  static constexpr int k_pitch = k_halo + 1;
  static constexpr int k_words = k_halo * k_pitch;
  __host__ __device__ static constexpr int offset(int row, int col) { return row * k_pitch + col; }
};
} // namespace

BB_REGISTER_VARIANT_WITH_PLAN(family(), "padded", "halo tile[34][35]; one word of padding per row",
                              factory<padded_layout>(), stencil_access_plan<padded_layout>);
} // namespace bb::convolution
