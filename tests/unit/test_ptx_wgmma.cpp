// wgmma.mma_async of kernels/wgmma, run by the interpreter from its PTX (tests/data/ptx/wgmma.ptx):
// the accumulators hold A B^T, read through the kernel's own shared-memory matrix descriptors in
// every canonical layout, and each warp's GMMA requests are those of the family's access plan.
#include <gtest/gtest.h>

#include <array>
#include <cstring>

#include "kernels/wgmma/layout.hpp"
#include "runner/model/matrix_access.hpp"
#include "runner/ptx/trace.hpp"
#include "tests/unit/ptx_kernel_run.hpp"

namespace bb::ptx {
namespace {

using model::tma_swizzle;

// The f16 bits of -2 .. 2: every product and sum below is exact.
constexpr std::uint16_t k_half[5] = {0xC000u, 0xBC00u, 0x0000u, 0x3C00u, 0x4000u};
int value_at(std::size_t i) { return static_cast<int>((i * 7 + i / 13) % 5) - 2; }

std::string wgmma_entry(tma_swizzle mode) {
  return "_ZN2bb5wgmma12wgmma_kernelILNS_5model11tma_swizzleE" + std::to_string(static_cast<int>(mode)) +
         "EEEvPK5uint4lPf";
}

struct wgmma_run {
  module m;
  global_memory global;
  cta_result result;
  std::vector<float> out;

  explicit wgmma_run(tma_swizzle mode, std::string ptx = {}, std::uint32_t threads = 128) {
    m = parse(ptx.empty() ? test::read_fixture("wgmma.ptx") : ptx);
    const std::size_t halves = 2 * static_cast<std::size_t>(wgmma::operand_bytes(mode)) / 2;
    std::vector<std::uint8_t> in(2 * halves);
    for (std::size_t i = 0; i < halves; ++i) std::memcpy(in.data() + 2 * i, &k_half[value_at(i) + 2], 2);
    global.add(0x1000'0000, in);
    global.add(0x2000'0000, std::vector<std::uint8_t>(64 * 64 * 4, 0xff));
    const entry& e = m.find(wgmma_entry(mode));
    launch l;
    l.block = {threads, 1, 1};
    l.params = pack_params(e, {0x1000'0000, 1, 0x2000'0000});
    result = run_cta(prepare(m, e), l, global);
    out = test::values_at<float>(global, 0x2000'0000);
  }
};

TEST(PtxWgmma, AccumulatorsHoldABTransposedInEveryLayout) {
  for (const tma_swizzle mode : {tma_swizzle::none, tma_swizzle::b32, tma_swizzle::b64, tma_swizzle::b128}) {
    SCOPED_TRACE(static_cast<int>(mode));
    const wgmma_run run(mode);
    const int k = wgmma::span_of(mode) / 2; // the family's K: 64 rows of span bytes per operand
    for (int row = 0; row < 64; ++row)
      for (int col = 0; col < 64; ++col) {
        int want = 0;
        for (int j = 0; j < k; ++j)
          want += value_at(static_cast<std::size_t>(row * k + j)) *
                  value_at(static_cast<std::size_t>((64 + col) * k + j));
        ASSERT_EQ(run.out[static_cast<std::size_t>(row * 64 + col)], static_cast<float>(want))
            << "D[" << row << "][" << col << "]";
      }
  }
}

TEST(PtxWgmma, EachWarpsRequestIsItsRowsOfAContinuedByItsQuarterOfB) {
  for (const tma_swizzle mode : {tma_swizzle::none, tma_swizzle::b32, tma_swizzle::b64, tma_swizzle::b128}) {
    SCOPED_TRACE(static_cast<int>(mode));
    const wgmma_run run(mode);
    std::vector<warp_request> gmma;
    for (const warp_request& r : warp_requests(run.result.events))
      if (r.access.kind == model::access_kind::gmma) gmma.push_back(r);
    const int steps = wgmma::steps_of(mode);
    ASSERT_EQ(gmma.size(), static_cast<std::size_t>(4 * steps * 2)); // per warp and step: A, then B continuing
    const auto b_base = static_cast<std::uint32_t>(wgmma::operand_bytes(mode));
    std::size_t at = 0;
    for (std::uint32_t warp = 0; warp < 4; ++warp)
      for (int s = 0; s < steps; ++s)
        for (const std::uint32_t operand : {0u, b_base}) {
          const warp_request& r = gmma[at++];
          std::array<std::uint32_t, 32> rows{};
          for (int lane = 0; lane < 32; ++lane) { // the plan: matrix j = row group j / 2, chunk j % 2
            const int j = 4 * static_cast<int>(warp) + lane / 8;
            rows[static_cast<std::size_t>(lane)] = operand +
                                                   wgmma::operand_offset(8 * (j / 2) + lane % 8, 2 * s + j % 2, mode);
          }
          EXPECT_EQ(r.warp, warp);
          EXPECT_EQ(r.continues(), operand != 0);
          EXPECT_EQ(r.access, model::matrix_access(rows, 4, model::access_kind::gmma))
              << "warp " << warp << " step " << s;
        }
  }
}

TEST(PtxWgmma, WhatItDoesNotFollowIsNamed) {
  const std::string ptx = test::read_fixture("wgmma.ptx");
  const auto error_of = [&](const std::string& from, const std::string& to, std::uint32_t threads = 128) {
    std::string edited = ptx;
    for (std::size_t at = 0; !from.empty() && (at = edited.find(from, at)) != std::string::npos; at += to.size())
      edited.replace(at, from.size(), to);
    try {
      const wgmma_run run(tma_swizzle::b128, edited, threads);
    } catch (const ptx_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("m64n64k16.f32.f16.f16", "m64n64k16.f16.bf16.bf16").find("f32 += bf16 x bf16 (k16)"),
            std::string::npos);
  EXPECT_NE(error_of("m64n64k16.f32.f16.f16", "m64n64k16.s32.f16.f16").find("and s32 += s8/u8 x s8/u8 (k32)"),
            std::string::npos);
  EXPECT_NE(error_of("m64n64k16.f32.f16.f16", "m64n64k32.s32.s8.e4m3").find("and s32 += s8/u8 x s8/u8 (k32)"),
            std::string::npos);
  EXPECT_NE(error_of("m64n64k16.f32.f16.f16", "m64n64k16.f32.f16.f16.satfinite").find("(k32)"), std::string::npos);
  // integer forms have no imm-scale or imm-trans operands
  EXPECT_NE(error_of("m64n64k16.f32.f16.f16", "m64n64k32.s32.s8.s8").find("takes 4 operands"), std::string::npos);
  EXPECT_NE(error_of("m64n64k16.f32.f16.f16", "m64n64k16.f32.e4m3.e4m3").find("for e4m3 (k32 is its K)"),
            std::string::npos);
  EXPECT_NE(error_of("m64n64k16.f32.f16.f16", "m64n64k32.f32.e4m3.e4m3").find("takes 6 operands"), std::string::npos);
  EXPECT_NE(error_of("m64n64k16.f32.f16.f16", "m64n64k16.f16.f16.f16").find("needs 16 accumulator registers"),
            std::string::npos);
  EXPECT_NE(error_of("p, 1, 1, 0, 0;", "p, 1, 1, 2, 0;").find("imm-trans must be 0 or 1"), std::string::npos);
  EXPECT_NE(error_of("m64n64k16", "m64n32k16").find("needs 16 accumulator registers"), std::string::npos);
  EXPECT_NE(error_of("", "", 64).find("needs the four warps of a warpgroup; the block has 64 threads"),
            std::string::npos);
}

} // namespace
} // namespace bb::ptx
