// Blelloch with conflict-free offsets: element i at word i + i / 32 spreads every level's lanes over 32 banks.
#include "kernels/scan/family.cuh"

namespace bb::scan {
namespace {
struct padded_layout {
  static constexpr int k_words = k_elements + k_elements / 32;
  __host__ __device__ static constexpr int offset(int i) { return i + i / 32; }
  // GPU Gems 3, listing 39-2: thread t loads elements t and t + 512, contiguous across a warp.
  __host__ __device__ static constexpr int first(int t) { return t; }
  __host__ __device__ static constexpr int second(int t) { return t + k_elements / 2; }
};
} // namespace

BB_REGISTER_VARIANT_WITH_PLAN(family(), "blelloch_padded",
                              "work-efficient scan, element i at word i + i/32 (temp[1056])",
                              factory<blelloch_variant<padded_layout>>(), blelloch_access_plan<padded_layout>);
} // namespace bb::scan
