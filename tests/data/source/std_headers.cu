// A kernel written for nvcc, unchanged: standard headers, std:: names, C macros, device printf
// and assert. NVRTC compiles it through bankbench's header layer.
#include <array>
#include <cassert>
#include <cfloat>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <tuple>
#include <type_traits>
#include <utility>

template <typename T, int N> __global__ void clamp_sum(const T* in, T* out, std::size_t n) {
  static_assert(std::is_floating_point<T>::value, "a floating-point kernel");
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  assert(n <= std::size_t(INT_MAX));
  if (i >= n) return;
  std::array<T, N> window{};
  for (int k = 0; k < N; ++k) window[k] = in[(i + k) % n];
  const auto bounds = std::make_tuple(T(-FLT_MAX), std::numeric_limits<T>::max());
  T sum = 0;
  std::plus<T> add;
  for (const T v : window) sum = add(sum, v < std::get<0>(bounds) ? std::get<0>(bounds) : v);
  const std::uint32_t lane = threadIdx.x % 32;
  if (i == 0 && lane == 0) printf("clamp_sum<%d>: n = %llu\n", N, static_cast<unsigned long long>(n));
  out[i] = std::move(sum);
}
