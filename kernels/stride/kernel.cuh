#pragma once
// The stride family's device code: stride_kernel and the element types and helpers it uses, with no
// host-only headers, so its code twin (bench/code_twins/stride.yaml) compiles it alone.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuda_runtime.h>

#include "kernels/common/shared_load.cuh"
#include "kernels/stride/pattern.hpp"

namespace bb::stride {

template <int Width> struct element;
template <> struct element<1> { using type = std::uint8_t; };
template <> struct element<2> { using type = std::uint16_t; };
template <> struct element<4> { using type = std::uint32_t; };
template <> struct element<8> { using type = uint2; };
template <> struct element<16> { using type = uint4; };

/// Folds one loaded element into the accumulator, one 32-bit word at a time.
template <class T, class Acc> __device__ __forceinline__ void fold(Acc& acc, const T& v) {
  if constexpr (sizeof(T) <= 4) {
    acc.x = mix(acc.x, static_cast<std::uint32_t>(v));
  } else if constexpr (sizeof(T) == 8) {
    acc.x = mix(acc.x, v.x);
    acc.y = mix(acc.y, v.y);
  } else {
    acc.x = mix(acc.x, v.x);
    acc.y = mix(acc.y, v.y);
    acc.z = mix(acc.z, v.z);
    acc.w = mix(acc.w, v.w);
  }
}

template <int Width>
using acc_type = std::conditional_t<Width == 16, uint4, std::conditional_t<Width == 8, uint2, uint1>>;

template <int Width> __global__ void __launch_bounds__(k_block)
    stride_kernel(const typename element<Width>::type* __restrict__ in, acc_type<Width>* __restrict__ out, int stride,
                  int group, int iters, int elements) {
  using T = typename element<Width>::type;
  extern __shared__ __align__(16) unsigned char smem[];
  T* s = reinterpret_cast<T*>(smem);
  const int tid = static_cast<int>(threadIdx.x);
  for (int e = tid; e < elements; e += k_block) s[e] = in[e];
  __syncthreads();
  const int lane = tid % 32;
  acc_type<Width> acc{};
  for (int k = 0; k < iters; ++k) fold(acc, smem::load(&s[element_index(lane, k, stride, group, Width)]));
  out[static_cast<std::size_t>(blockIdx.x) * k_block + tid] = acc;
}

} // namespace bb::stride
