#pragma once
// The padded tile layout, shared by padded.cu and padded_wide.cu: each row of an S x S tile is
// S + 1 elements long. "One word" of padding is one element: 4 bytes for float and 8 bytes for
// double (4 bytes would leave every other row's doubles misaligned for an 8-byte access).
#include "kernels/common/host_device.hpp"

namespace bb::transpose {

template <int S> struct padded_layout {
  static constexpr int k_elements = S * (S + 1);
  BB_HD static constexpr int offset(int row, int col) { return row * (S + 1) + col; }
};

} // namespace bb::transpose
