#pragma once
/// The stride family's index function and accumulator, shared by the kernel (nvcc), its access
/// plan and CPU reference, and host tests built by the C++ compiler alone. No CUDA headers.
#include <cstdint>

#include "kernels/common/host_device.hpp"

namespace bb::stride {

inline constexpr int k_block = 256; ///< 8 warps, every one making the same requests
inline constexpr int k_warps = k_block / 32;
/// Load k of a lane adds (k mod 8) x 128 bytes to its address: every bank and every sharing of a
/// word stays as it was, but no load repeats the previous one, so none can be hoisted or merged.
inline constexpr int k_shifts = 8;
inline constexpr int k_shift_bytes = 128;

/// Lanes in groups of `group` (1: strided, 2: multicast, 32: broadcast) read one element; group g
/// reads element g * stride, shifted by load k as above. `width` is the element size in bytes.
BB_HD constexpr int element_index(int lane, int k, int stride, int group, int width) {
  return (lane / group) * stride + (k % k_shifts) * (k_shift_bytes / width);
}

/// Elements the shared array must hold for every index above.
BB_HD constexpr int array_elements(int stride, int group, int width) {
  return element_index(31, k_shifts - 1, stride, group, width) + 1;
}

/// Order-dependent and exact: the CPU reference folds the same values in the same order.
BB_HD constexpr std::uint32_t mix(std::uint32_t acc, std::uint32_t value) { return acc * 33u + value; }

} // namespace bb::stride
