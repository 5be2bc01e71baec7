// include/bankbench/bank_conflicts.hpp: compile-time answers that agree with the bank model,
// and the often-quoted padding check that does not.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>

#include "bankbench/bank_conflicts.hpp"
#include "runner/model/evaluate.hpp"
#include "runner/model/matrix_access.hpp"
#include "runner/model/tile.hpp"

namespace {

struct float4_like {
  float x, y, z, w;
};

/// The check people are told to write: "make the row length not a multiple of 128 bytes".
template <class T> constexpr bool quoted_padding_check(int cols, int pad) {
  return (cols + pad) * sizeof(T) % 128 != 0;
}

// The counter-example: float[32][34] passes the quoted check and is 2-way.
static_assert(quoted_padding_check<float>(32, 2), "136-byte rows pass the quoted check");
static_assert(bankbench::column_conflict_degree<float>(32, 2) == 2, "float[32][34] columns are 2-way");
static_assert(!bankbench::column_conflict_free<float>(32, 2), "and the header says so");
// What does work.
static_assert(bankbench::column_conflict_degree<float>(32) == 32, "float[32][32] columns are 32-way");
static_assert(bankbench::column_conflict_free<float>(32, 1), "float[32][33] is conflict-free");
static_assert(bankbench::column_wavefronts<float>(32) == 32);
static_assert(bankbench::column_wavefronts<double>(32, 1) == 2, "two half-warps, one wavefront each");
static_assert(bankbench::column_conflict_free<double>(32, 1));
static_assert(bankbench::column_conflict_degree<double>(32) == 16);
static_assert(bankbench::column_wavefronts<float4_like>(8, 1) == 4, "four quarter-warps");
static_assert(bankbench::column_conflict_degree<float4_like>(8) == 8);
static_assert(bankbench::column_conflict_degree<char>(128) == 32, "char[32][128]: one bank");
static_assert(bankbench::column_conflict_free<char>(128, 4), "char[32][132]: 33 words per row");
static_assert(bankbench::column_conflict_degree<float>(32, 0, 4) == 4, "four active lanes");
static_assert(bankbench::smallest_conflict_free_pad<float>(32) == 1);
static_assert(bankbench::smallest_conflict_free_pad<double>(16) == 1);
static_assert(bankbench::smallest_conflict_free_pad<float>(31) == 0);
static_assert(bankbench::strided_wavefronts(0, 4) == 1, "broadcast");
static_assert(bankbench::strided_wavefronts(0, 8) == 1, "an 8-byte broadcast load: one paired warp (H200)");
static_assert(bankbench::strided_wavefronts(0, 16) == 2, "a 16-byte broadcast load: two paired half-warps (H200)");
static_assert(bankbench::strided_wavefronts(0, 16, 16) == 1);
static_assert(bankbench::strided_wavefronts(4, 4) == 1);
static_assert(bankbench::ideal_wavefronts(16) == 4);
static_assert(bankbench::strided_wavefronts(4, 3) == -1, "3-byte accesses do not exist");

TEST(model_header, the_quoted_check_accepts_conflicted_tiles) {
  // Every float tile with 32 + pad columns (pad 0..32) that the quoted check accepts but is not
  // conflict-free: exactly the even paddings other than multiples of 32.
  int wrongly_accepted = 0;
  for (int pad = 0; pad <= 32; ++pad) {
    const bool quoted = quoted_padding_check<float>(32, pad);
    const bool free = bankbench::column_conflict_free<float>(32, pad);
    if (quoted && !free) ++wrongly_accepted;
    if (!quoted) {
      EXPECT_FALSE(free) << pad;
    } // it never rejects a good one: 128-byte rows are 32-way
    EXPECT_EQ(free, (32 + pad) % 2 == 1) << pad;
  }
  EXPECT_EQ(wrongly_accepted, 15); // pads 2, 4, ..., 30
}

TEST(model_header, agrees_with_the_model_library) {
  using namespace bb::model;
  for (int bytes : {1, 2, 4, 8, 16})
    for (int cols = 1; cols <= 64; ++cols)
      for (int pad = 0; pad <= 4; ++pad)
        for (int lanes : {32, 17, 4}) {
          const auto tile = make_tile({32, cols, bytes, "t", pad, 0});
          const auto c = evaluate(make_access(tile, {access_pattern::along::column, 0, lanes}));
          EXPECT_EQ(bankbench::column_wavefronts(cols, bytes, pad, lanes), c.wavefronts)
              << bytes << " " << cols << " " << pad;
          EXPECT_EQ(bankbench::column_conflict_degree(cols, bytes, pad, lanes), c.degree)
              << bytes << " " << cols << " " << pad;
        }
}

TEST(model_header, strided_matches_the_model_at_every_width) {
  using namespace bb::model;
  for (int width : {1, 2, 4, 8, 16})
    for (int stride = 0; stride <= 64; ++stride) {
      warp_access a;
      a.width = width;
      for (int l = 0; l < 32; ++l)
        a.address[static_cast<std::size_t>(l)] = static_cast<std::uint32_t>(l * stride * width);
      EXPECT_EQ(bankbench::strided_wavefronts(stride * width, width), evaluate(a).wavefronts) << width << " " << stride;
    }
}

} // namespace

// ldmatrix in the header: 128-byte rows are 8-way per matrix; 144-byte rows or Swizzle<3,4,3>
// are one wavefront per matrix; TMA 64B over 128-byte rows leaves 2-way.
static_assert(bankbench::ldmatrix_wavefronts(128, 4) == 32, "unpadded ldmatrix.x4: 32 wavefronts");
static_assert(bankbench::ldmatrix_wavefronts(144, 4) == 4, "rows padded by 16 bytes: 4");
static_assert(bankbench::ldmatrix_wavefronts(128, 4, 16, 3, 4, 3) == 4, "Swizzle<3,4,3>: 4");
static_assert(bankbench::ldmatrix_wavefronts(128, 4, 0, 2, 4, 3) == 8, "Swizzle<2,4,3> over 128-byte rows: 2-way");
static_assert(bankbench::ldmatrix_conflict_free(144, 128) && bankbench::ldmatrix_conflict_free(128, 128, 4, 3, 4, 3));
static_assert(!bankbench::ldmatrix_conflict_free(128, 128));
static_assert(bankbench::cute_swizzle(3 * 128 + 16, 3, 4, 3) == 3 * 128 + 2 * 16);

TEST(model_header, ldmatrix_agrees_with_the_model_for_pitches_and_swizzles) {
  for (const int pitch : {64, 80, 96, 128, 144, 160, 192, 256, 272})
    for (const int mats : {1, 2, 4})
      for (const int b : {0, 1, 2, 3})
        for (int col = 0; col < 64; col += 16) {
          std::array<std::uint32_t, 32> rows{};
          for (std::uint32_t l = 0; l < 32; ++l) {
            const auto byte = static_cast<long long>(l) * pitch + col;
            rows[l] = static_cast<std::uint32_t>(b == 0 ? byte : bankbench::cute_swizzle(byte, b, 4, 3));
          }
          const int model = bb::model::evaluate(bb::model::matrix_access(rows, mats)).wavefronts;
          EXPECT_EQ(bankbench::ldmatrix_wavefronts(pitch, mats, col, b, b == 0 ? 0 : 4, b == 0 ? 0 : 3), model)
              << "pitch " << pitch << " x" << mats << " Swizzle<" << b << ",4,3> col " << col;
        }
}
