// kernels/wgmma/layout.hpp without a GPU: the descriptors the kernel passes to wgmma, field by
// field, and the properties of the four canonical operand layouts that the kernel, its access
// plan and the result's check rely on.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <utility>

#include "kernels/wgmma/layout.hpp"

namespace {

using bb::model::tma_swizzle;
namespace w = bb::wgmma;

constexpr tma_swizzle k_modes[] = {tma_swizzle::none, tma_swizzle::b32, tma_swizzle::b64, tma_swizzle::b128};

} // namespace

// Start address >> 4 in bits 0-13, LBO >> 4 in 16-29, SBO >> 4 in 32-45, base offset 0, layout
// type in 62-63 (0 interleave, 1 128B, 2 64B, 3 32B).
TEST(kernels_wgmma, descriptors_field_by_field) {
  EXPECT_EQ(w::descriptor(0, tma_swizzle::none), 0x0000'0010'0008'0000ull); // LBO 128, SBO 256
  EXPECT_EQ(w::descriptor(0, tma_swizzle::b32), 0xC000'0010'0001'0000ull);  // LBO 1, SBO 256
  EXPECT_EQ(w::descriptor(0, tma_swizzle::b64), 0x8000'0020'0001'0000ull);  // SBO 512
  EXPECT_EQ(w::descriptor(0, tma_swizzle::b128), 0x4000'0040'0001'0000ull); // SBO 1024
  // A K step 32 bytes on from a tile at 0x400: start field 0x42; the address keeps 18 bits.
  EXPECT_EQ(w::descriptor(0x400 + 32, tma_swizzle::b128) & 0x3FFFull, 0x42ull);
  EXPECT_EQ(w::descriptor(0x40000 + 0x400, tma_swizzle::b128) & 0x3FFFull, 0x40ull);
  EXPECT_EQ(w::descriptor(0x3FFF0, tma_swizzle::none) >> 14 & 3ull, 0ull); // no spill into bits 14-15
}

TEST(kernels_wgmma, spans_steps_and_sizes) {
  EXPECT_EQ(w::span_of(tma_swizzle::none), 32);
  EXPECT_EQ(w::span_of(tma_swizzle::b32), 32);
  EXPECT_EQ(w::span_of(tma_swizzle::b64), 64);
  EXPECT_EQ(w::span_of(tma_swizzle::b128), 128);
  EXPECT_EQ(w::steps_of(tma_swizzle::b128), 4);
  EXPECT_EQ(w::operand_bytes(tma_swizzle::b64), 4096);
  for (const auto mode : k_modes) EXPECT_EQ(w::operand_bytes(mode) % 1024, 0) << "B starts a swizzle pattern";
}

// Each layout puts the operand's 64 x span bytes in 64 x span bytes, every 16-byte chunk once, and
// the copy moves every chunk once.
TEST(kernels_wgmma, layouts_and_the_copy_are_one_to_one) {
  for (const auto mode : k_modes) {
    SCOPED_TRACE(static_cast<int>(mode));
    const int per_row = w::span_of(mode) / 16;
    std::set<std::uint32_t> offsets;
    for (int row = 0; row < w::k_rows; ++row)
      for (int chunk = 0; chunk < per_row; ++chunk) {
        const std::uint32_t o = w::operand_offset(row, chunk, mode);
        EXPECT_EQ(o % 16, 0u);
        EXPECT_LT(o, static_cast<std::uint32_t>(w::operand_bytes(mode)));
        offsets.insert(o);
      }
    EXPECT_EQ(offsets.size(), static_cast<std::size_t>(w::k_rows * per_row));
    std::set<std::pair<int, int>> copied;
    for (int i = 0; i < w::operand_bytes(mode) / 16; ++i) {
      const auto p = w::copy_chunk(i, mode);
      copied.insert({p.row, p.chunk});
    }
    EXPECT_EQ(copied.size(), offsets.size());
    EXPECT_EQ(copied.begin()->first, 0);
    EXPECT_EQ(copied.rbegin()->first, w::k_rows - 1);
    EXPECT_EQ(copied.rbegin()->second, per_row - 1);
  }
}

// The canonical layouts as the hardware reads them: a core matrix is rows 8g..8g+7 of one 16-byte
// chunk, each row 16 bytes (none) or `span` bytes (swizzled) after the last before the swizzle, the
// next 8-row group SBO on, the next chunk along K LBO (none) or 16 bytes (swizzled) on; the
// swizzle is the address's bits 4-6 XOR bits 7-9 (as many as the mode has).
TEST(kernels_wgmma, layouts_are_the_canonical_wgmma_layouts) {
  for (const auto mode : k_modes) {
    SCOPED_TRACE(static_cast<int>(mode));
    const bool none = mode == tma_swizzle::none;
    const std::uint32_t row_pitch = none ? 16u : static_cast<std::uint32_t>(w::span_of(mode));
    const std::uint32_t chunk_pitch = none ? w::leading_byte_offset(mode) : 16u;
    for (int row = 0; row < w::k_rows; ++row)
      for (int chunk = 0; chunk < w::span_of(mode) / 16; ++chunk) {
        const std::uint32_t plain = static_cast<std::uint32_t>(row / 8) * w::stride_byte_offset(mode) +
                                    static_cast<std::uint32_t>(row % 8) * row_pitch +
                                    static_cast<std::uint32_t>(chunk) * chunk_pitch;
        const std::uint32_t bits = none ? 0u : (1u << static_cast<int>(mode)) - 1u;
        EXPECT_EQ(w::operand_offset(row, chunk, mode), plain ^ (((plain >> 7) & bits) << 4)) << row << " " << chunk;
      }
  }
}

// What the model predicts rests on this: the 8 rows of every core matrix fall in 8 distinct
// 16-byte bank groups, in every layout.
TEST(kernels_wgmma, every_core_matrix_spans_8_bank_groups) {
  for (const auto mode : k_modes)
    for (int g = 0; g < w::k_rows / 8; ++g)
      for (int chunk = 0; chunk < w::span_of(mode) / 16; ++chunk) {
        std::set<std::uint32_t> groups;
        for (int r = 0; r < 8; ++r) groups.insert(w::operand_offset(8 * g + r, chunk, mode) / 16 % 8);
        EXPECT_EQ(groups.size(), 8u) << static_cast<int>(mode) << " group " << g << " chunk " << chunk;
      }
}

// The m64n64 f32 accumulator: 128 threads x 32 registers cover the 64 x 64 result once.
TEST(kernels_wgmma, accumulator_fragment_covers_the_tile_once) {
  std::set<std::pair<int, int>> cells;
  for (int t = 0; t < 128; ++t)
    for (int r = 0; r < 32; ++r) {
      const auto c = w::accumulator_at(t, r);
      EXPECT_GE(c.row, 16 * (t / 32));
      EXPECT_LT(c.row, 16 * (t / 32) + 16);
      cells.insert({c.row, c.col});
    }
  EXPECT_EQ(cells.size(), 64u * 64u);
  EXPECT_EQ(w::accumulator_at(0, 0).col, 0);
  EXPECT_EQ(w::accumulator_at(5, 3).row, 1 + 8); // lane 5: row 1; registers 2, 3: row + 8
  EXPECT_EQ(w::accumulator_at(5, 3).col, 2 + 1);
  EXPECT_EQ(w::accumulator_at(5, 4).col, 8 + 2);
}
