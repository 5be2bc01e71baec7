#pragma once
// The wgmma family's operand layouts and shared-memory matrix descriptors, shared by the kernel,
// its access plan and the host tests (no CUDA headers).
//
// Each operand (A: 64 x K, B: 64 x K, f16, K-major) is 64 rows of `span` bytes: K = 16 (32-byte
// rows) for the interleaved layout without swizzle, and K = span / 2 for the 32B, 64B and 128B
// swizzles. A row's 16-byte chunk c holds elements 8c..8c+7.
//  - none (interleave): 8-row x 16-byte core matrices, core matrix (row group g, K chunk c) at
//    g * 256 + c * 128, its row r at + 16 r: LBO = 128 (next core matrix along K), SBO = 256
//    (next 8-row group).
//  - swizzled: byte b of row r at model::tma_swizzled(r * span + b), the formula TMA uses (CuTe
//    Swizzle<1|2|3, 4, 3>); LBO unused (field 1), SBO = 8 * span.
#include <cstdint>

#include "kernels/common/host_device.hpp"
#include "runner/model/matrix_access.hpp"

namespace bb::wgmma {

inline constexpr int k_rows = 64; ///< M of A, N of B: wgmma m64n64k16

/// Bytes per operand row: 32 for none (K = 16) and 32B, 64 for 64B, 128 for 128B.
BB_HD constexpr int span_of(model::tma_swizzle mode) {
  return mode == model::tma_swizzle::none ? 32 : 16 << static_cast<int>(mode);
}

/// k16 steps (wgmma instructions) per tile: K / 16 = span / 32.
BB_HD constexpr int steps_of(model::tma_swizzle mode) { return span_of(mode) / 32; }

/// Bytes of one operand in shared memory: 64 rows of `span` bytes.
BB_HD constexpr int operand_bytes(model::tma_swizzle mode) { return k_rows * span_of(mode); }

/// Byte offset, within an operand, of 16-byte chunk `chunk` of row `row`.
BB_HD constexpr std::uint32_t operand_offset(int row, int chunk, model::tma_swizzle mode) {
  if (mode == model::tma_swizzle::none)
    return static_cast<std::uint32_t>((row / 8) * 256 + chunk * 128 + (row % 8) * 16);
  return model::tma_swizzled(static_cast<std::uint32_t>(row * span_of(mode) + 16 * chunk), mode);
}

/// A row and 16-byte chunk of an operand.
struct chunk_pos {
  int row = 0, chunk = 0;
};

/// The chunk that copy step i (0 .. 64 * span / 16) moves: thread t takes i = t, t + 128, ...
/// Swizzled modes go row by row (each 8-lane phase fills one aligned 128 bytes, which the swizzle
/// only permutes); none goes through shared memory in order (core matrix by core matrix), so its
/// 8-lane phases are conflict-free too.
BB_HD constexpr chunk_pos copy_chunk(int i, model::tma_swizzle mode) {
  if (mode == model::tma_swizzle::none) return {8 * (i / 16) + i % 8, (i / 8) % 2};
  const int per_row = span_of(mode) / 16;
  return {i / per_row, i % per_row};
}

/// The descriptor's layout-type field (bits 62-63): 0 interleave, 1 128B, 2 64B, 3 32B.
BB_HD constexpr std::uint64_t layout_type(model::tma_swizzle mode) {
  switch (mode) {
  case model::tma_swizzle::none: return 0;
  case model::tma_swizzle::b32: return 3;
  case model::tma_swizzle::b64: return 2;
  case model::tma_swizzle::b128: return 1;
  }
  return 0;
}

/// Leading and stride byte offsets (bytes; the descriptor holds them >> 4).
BB_HD constexpr std::uint32_t leading_byte_offset(model::tma_swizzle mode) {
  return mode == model::tma_swizzle::none ? 128u : 16u; // swizzled K-major: unused, field 1
}
BB_HD constexpr std::uint32_t stride_byte_offset(model::tma_swizzle mode) {
  return mode == model::tma_swizzle::none ? 256u : 8u * static_cast<std::uint32_t>(span_of(mode));
}

/// The 64-bit wgmma matrix descriptor of an operand starting at shared address `smem_address`:
/// bits 0-13 start address >> 4, 16-29 LBO >> 4, 32-45 SBO >> 4, 49-51 base offset (0: the
/// operand sits at a 1024-byte boundary, K steps stay within the first 128 bytes), 62-63 layout.
BB_HD constexpr std::uint64_t descriptor(std::uint32_t smem_address, model::tma_swizzle mode) {
  return static_cast<std::uint64_t>((smem_address & 0x3FFFFu) >> 4) |
         static_cast<std::uint64_t>(leading_byte_offset(mode) >> 4) << 16 |
         static_cast<std::uint64_t>(stride_byte_offset(mode) >> 4) << 32 | layout_type(mode) << 62;
}

/// An element of the 64 x 64 result.
struct cell {
  int row = 0, col = 0;
};

/// Accumulator register r (0..31) of thread t of the warpgroup, m64n64 f32: its row and column
/// (PTX ISA, wgmma accumulator fragment: warp w holds rows 16w..16w+15).
BB_HD constexpr cell accumulator_at(int thread, int r) {
  const int warp = thread / 32, lane = thread % 32;
  return {16 * warp + lane / 4 + 8 * ((r / 2) % 2), 8 * (r / 4) + 2 * (lane % 4) + r % 2};
}

} // namespace bb::wgmma
