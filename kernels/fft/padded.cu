// Element i at word i + i / 32: the stage writes (2j, 2j + 1) and the bit-reversed read hit 32 distinct banks.
#include "kernels/fft/family.cuh"

namespace bb::fft {
namespace {
struct padded_layout {
  static constexpr int k_words = k_points + k_points / 32;
  __host__ __device__ static constexpr int offset(int i) { return i + i / 32; }
};
} // namespace

BB_REGISTER_VARIANT_WITH_PLAN(family(), "padded", "re[528], im[528]: element i at word i + i/32",
                              factory<padded_layout>(), fft_access_plan<padded_layout>);
} // namespace bb::fft
