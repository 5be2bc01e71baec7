#pragma once
// The convolution family's reference stencil (and, through index.hpp, its index functions), shared by
// the kernels and the check on the GPU (nvcc), the access plans and the host tests (the C++ compiler alone).
#include <cstddef>
#include <vector>

#include "kernels/common/host_device.hpp"
#include "kernels/convolution/index.hpp"

namespace bb::convolution {

/// The reference stencil in the kernel's order of operations: bit-identical results, on the host
/// or (for the check on the GPU) the device. pixel(yy, xx) gives the input at (yy, xx), which is
/// inside the n x n image.
template <class Pixel> BB_HD float reference_pixel_of(Pixel pixel, int n, int y, int x) {
  float acc = 0.0f;
  for (int dy = 0; dy < 3; ++dy)
    for (int dx = 0; dx < 3; ++dx) {
      const int yy = y - 1 + dy, xx = x - 1 + dx;
      const float v = yy >= 0 && yy < n && xx >= 0 && xx < n ? pixel(yy, xx) : 0.0f;
#if defined(__CUDA_ARCH__)
      acc = __fadd_rn(acc, __fmul_rn(weight(dy, dx), v)); // as the kernel: never contracted to an FMA
#else
      acc = acc + weight(dy, dx) * v;
#endif
    }
  return acc;
}

inline float reference_pixel(const std::vector<float>& in, int n, int y, int x) {
  return reference_pixel_of([&](int yy, int xx) { return in[static_cast<std::size_t>(yy) * n + xx]; }, n, y, x);
}

} // namespace bb::convolution
