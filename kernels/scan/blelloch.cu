// Blelloch work-efficient scan, unpadded: at sweep level k lanes sit 2^(k+1) words apart, up to 32-way.
#include "kernels/scan/family.cuh"

namespace bb::scan {
namespace {
struct plain_layout {
  static constexpr int k_words = k_elements;
  __host__ __device__ static constexpr int offset(int i) { return i; }
  // GPU Gems 3, listing 39-1: thread t loads elements 2t and 2t + 1 (2-way on its own).
  __host__ __device__ static constexpr int first(int t) { return 2 * t; }
  __host__ __device__ static constexpr int second(int t) { return 2 * t + 1; }
};
} // namespace

BB_REGISTER_VARIANT_WITH_PLAN(family(), "blelloch", "work-efficient up- and down-sweep, temp[1024] unpadded",
                              factory<blelloch_variant<plain_layout>>(), blelloch_access_plan<plain_layout>);
} // namespace bb::scan
