#pragma once
/// Bytewise equality for host checks (C++ compiler or nvcc) and device checks alike.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/common/host_device.hpp"

namespace bb {

/// Whether a and b hold the same bytes, on host or device: the test of a bit-exact check, where ==
/// would fail a NaN and pass -0 for 0 (the 0xff poison, a NaN, never holds the bytes of a generated
/// value). Word by word: device code has no memcmp.
template <class T> BB_HD bool same_bytes(const T& a, const T& b) {
  using word = std::conditional_t<sizeof(T) % 8 == 0, std::uint64_t,
                                  std::conditional_t<sizeof(T) % 4 == 0, std::uint32_t, unsigned char>>;
  constexpr std::size_t k_words = sizeof(T) / sizeof(word);
  word x[k_words], y[k_words];
  memcpy(x, &a, sizeof(T));
  memcpy(y, &b, sizeof(T));
  for (std::size_t k = 0; k < k_words; ++k)
    if (x[k] != y[k]) return false;
  return true;
}

} // namespace bb
