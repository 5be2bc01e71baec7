#pragma once
/// Layouts of a 32-row tile of 128-byte rows, shared by the ldmatrix, stmatrix and cp_async
/// families: byte `byte` of row `row` lives at offset(row, byte).
#include <cstdint>

#include "kernels/common/host_device.hpp"
#include "runner/model/matrix_access.hpp"

namespace bb::tile_128 {

inline constexpr int k_rows = 32;
inline constexpr int k_row_bytes = 128;

/// Rows of `Pitch` bytes: 128 (the 8 rows of a 16-byte column in one bank group) or 144.
template <int Pitch> struct pitched {
  static constexpr int k_bytes = k_rows * Pitch;
  BB_HD static constexpr int offset(int row, int byte) { return row * Pitch + byte; }
};

/// 128-byte rows with CuTe Swizzle<3,4,3> (TMA 128B): chunk k of row r at chunk k XOR (r mod 8).
struct swizzle_343 {
  static constexpr int k_bytes = k_rows * k_row_bytes;
  BB_HD static constexpr int offset(int row, int byte) {
    return static_cast<int>(model::cute_swizzle(static_cast<std::uint32_t>(row * k_row_bytes + byte), 3, 4, 3));
  }
};

} // namespace bb::tile_128
