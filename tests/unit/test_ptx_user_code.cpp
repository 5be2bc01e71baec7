// What users' kernels hold beside shared-memory accesses, run by the interpreter: elect.sync, device
// printf and assert (calls), f16x2 / bf16x2 arithmetic, fp8 pairs (e4m3x2, e5m2x2) converted both
// ways, and named barriers for part of the CTA.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "runner/ptx/trace.hpp"
#include "tests/unit/ptx_kernel_run.hpp"

namespace bb::ptx {
namespace {

// elect.sync: the lowest lane of the member mask leads; every member learns its lane. Lanes 0 to 4
// branch around it, so the member mask is lanes 5 to 31.
TEST(PtxElect, TheLowestLaneOfTheMemberMaskLeads) {
  const std::string ptx = ".version 8.0\n.target sm_90\n.address_size 64\n"
                          ".visible .entry k(.param .u64 k_in, .param .u64 k_out)\n{\n"
                          "  .reg .pred %p<4>;\n  .reg .b32 %r<20>;\n  .reg .b64 %rd<10>;\n"
                          "  ld.param.u64 %rd3, [k_out];\n  cvta.to.global.u64 %rd4, %rd3;\n"
                          "  mov.u32 %r1, %tid.x;\n  mul.wide.u32 %rd5, %r1, 8;\n  add.s64 %rd6, %rd4, %rd5;\n"
                          "  setp.lt.u32 %p1, %r1, 5;\n  @%p1 bra $L_done;\n"
                          "  elect.sync %r2|%p2, 0xffffffe0;\n  selp.u32 %r3, 1, 0, %p2;\n"
                          "  st.global.u32 [%rd6], %r2;\n  st.global.u32 [%rd6+4], %r3;\n"
                          "$L_done:\n  ret;\n}\n";
  const test::kernel_run run("", "k", {std::vector<std::uint8_t>(4), std::vector<std::uint8_t>(256, 0xff)}, {32, 1, 1},
                             {0, 0, 0}, {1, 1, 1}, ptx);
  const auto out = run.out<std::uint32_t>(1);
  for (std::uint32_t lane = 0; lane < 32; ++lane) {
    EXPECT_EQ(out[2 * lane], lane < 5 ? 0xffffffffu : 5u) << lane;
    EXPECT_EQ(out[2 * lane + 1], lane < 5 ? 0xffffffffu : lane == 5 ? 1u : 0u) << lane;
  }
}

} // namespace
} // namespace bb::ptx

namespace bb::ptx {
namespace {

// Device printf (a call of vprintf: prints nothing, its arguments in .param scratch) and assert
// (__assertfail, reached only when the assertion fails) in tests/data/ptx/printf.cu.
TEST(PtxCall, PrintfRunsAndAFailedAssertStopsTheRun) {
  std::vector<std::int32_t> in(32);
  for (int i = 0; i < 32; ++i) in[static_cast<std::size_t>(i)] = 3 * i;
  const test::kernel_run run("printf.ptx", "_Z6reportPKiPi", {test::bytes_of(in), std::vector<std::uint8_t>(128, 0xff)},
                             {32, 1, 1});
  const auto out = run.out<std::int32_t>(1);
  for (std::size_t i = 0; i < 32; ++i) ASSERT_EQ(out[i], in[(i + 1) % 32]) << i;
  // The printf argument s[1] is one more load request, lane 0 alone.
  std::size_t single = 0;
  for (const warp_request& r : warp_requests(run.result.events)) single += r.access.active == 1u ? 1 : 0;
  EXPECT_EQ(single, 1u);

  in[7] = -1;
  try {
    const test::kernel_run failed("printf.ptx", "_Z6reportPKiPi",
                                  {test::bytes_of(in), std::vector<std::uint8_t>(128, 0xff)}, {32, 1, 1});
    FAIL() << "no error";
  } catch (const ptx_error& e) {
    EXPECT_NE(std::string(e.what()).find("an assert() in the kernel failed (it called __assertfail)"),
              std::string::npos)
        << e.what();
  }
}

} // namespace
} // namespace bb::ptx

namespace bb::ptx {
namespace {

/// A one-block kernel of `threads` threads writing `out_bytes`, run as written or with a piece of
/// its text replaced (the first place it stands), for the errors the edits give.
struct edited_kernel {
  std::string ptx;
  std::size_t out_bytes = 0;
  std::uint32_t threads = 0;

  [[nodiscard]] test::kernel_run run(const std::string& from = "", const std::string& to = "") const {
    std::string edited = ptx;
    if (!from.empty()) edited.replace(edited.find(from), from.size(), to);
    return {"", "k", {std::vector<std::uint8_t>(out_bytes, 0xff)}, {threads, 1, 1}, {0, 0, 0}, {1, 1, 1}, edited};
  }
  /// The error the edited kernel stops with, or "no error".
  [[nodiscard]] std::string error(const std::string& from, const std::string& to) const {
    try {
      (void)run(from, to);
    } catch (const ptx_error& e) {
      return e.what();
    }
    return "no error";
  }
};

// f16x2 and bf16x2 arithmetic: each 16-bit half computed as its scalar type (half2 math of ML kernels).
TEST(PtxHalf2, EachHalfIsComputedOnItsOwn) {
  const std::string ptx =
      ".version 8.0\n.target sm_90\n.address_size 64\n"
      ".visible .entry k(.param .u64 k_in, .param .u64 k_out)\n{\n"
      "  .reg .b32 %r<20>;\n  .reg .b64 %rd<10>;\n"
      "  ld.param.u64 %rd1, [k_in];\n  cvta.to.global.u64 %rd2, %rd1;\n"
      "  ld.param.u64 %rd3, [k_out];\n  cvta.to.global.u64 %rd4, %rd3;\n"
      "  ld.global.b32 %r1, [%rd2];\n  ld.global.b32 %r2, [%rd2+4];\n"
      "  ld.global.b32 %r8, [%rd2+8];\n  ld.global.b32 %r9, [%rd2+12];\n"
      "  add.rn.f16x2 %r3, %r1, %r2;\n  mul.rn.f16x2 %r4, %r1, %r2;\n  fma.rn.f16x2 %r5, %r1, %r2, %r3;\n"
      "  neg.f16x2 %r6, %r1;\n  max.bf16x2 %r7, %r8, %r9;\n"
      "  st.global.b32 [%rd4], %r3;\n  st.global.b32 [%rd4+4], %r4;\n  st.global.b32 [%rd4+8], %r5;\n"
      "  st.global.b32 [%rd4+12], %r6;\n  st.global.b32 [%rd4+16], %r7;\n  ret;\n}\n";
  // f16 {1.5, -2.0} and {0.25, 3.0}; bf16 {1.5, -2.0} and {0.25, 3.0} (low half first)
  const std::vector<std::uint32_t> in = {0xC0003E00u, 0x42003400u, 0xC0003FC0u, 0x40403E80u};
  const test::kernel_run run("", "k", {test::bytes_of(in), std::vector<std::uint8_t>(20, 0xff)}, {1, 1, 1}, {0, 0, 0},
                             {1, 1, 1}, ptx);
  EXPECT_EQ(run.out<std::uint32_t>(1), (std::vector<std::uint32_t>{
                                           0x3C003F00u, // {1.75, 1.0}
                                           0xC6003600u, // {0.375, -6.0}
                                           0xC5004040u, // {2.125, -5.0}: a b + (a + b)
                                           0x4000BE00u, // {-1.5, 2.0}
                                           0x40403FC0u, // bf16 max {1.5, 3.0}
                                       }));
}

// fp8 pairs, as FP8 kernels quantise and dequantise: cvt.rn.satfinite[.relu].e4m3x2|e5m2x2 from two
// f32 (the first into the high byte) or an f16x2, and cvt.rn.f16x2.e4m3x2|e5m2x2 back. Per thread:
// (1, -2) exact; (1000, 250) saturated to e4m3's 448 and rounded to 256 (e5m2: 1024, 256);
// (NaN, -100) NaN kept, -100 rounded to even (e4m3 -96, e5m2 -96), .relu making it 0.
TEST(PtxFp8, PairsConvertBothWays) {
  const std::string ptx =
      ".version 8.0\n.target sm_90\n.address_size 64\n"
      ".visible .entry k(.param .u64 k_in, .param .u64 k_out)\n{\n"
      "  .reg .b16 %h<8>;\n  .reg .b32 %r<20>;\n  .reg .f32 %f<10>;\n  .reg .b64 %rd<10>;\n"
      "  ld.param.u64 %rd1, [k_in];\n  cvta.to.global.u64 %rd2, %rd1;\n"
      "  ld.param.u64 %rd3, [k_out];\n  cvta.to.global.u64 %rd4, %rd3;\n"
      "  mov.u32 %r1, %tid.x;\n  mul.wide.u32 %rd5, %r1, 8;\n  add.s64 %rd6, %rd2, %rd5;\n"
      "  ld.global.f32 %f1, [%rd6];\n  ld.global.f32 %f2, [%rd6+4];\n"
      "  cvt.rn.satfinite.e4m3x2.f32 %h1, %f1, %f2;\n  cvt.rn.satfinite.e5m2x2.f32 %h2, %f1, %f2;\n"
      "  cvt.rn.satfinite.relu.e4m3x2.f32 %h3, %f1, %f2;\n  cvt.rn.f16x2.f32 %r4, %f1, %f2;\n"
      "  cvt.rn.satfinite.e4m3x2.f16x2 %h4, %r4;\n"
      "  cvt.rn.f16x2.e4m3x2 %r2, %h1;\n  cvt.rn.f16x2.e5m2x2 %r3, %h2;\n"
      "  mul.wide.u32 %rd7, %r1, 16;\n  add.s64 %rd8, %rd4, %rd7;\n"
      "  st.global.b16 [%rd8], %h1;\n  st.global.b16 [%rd8+2], %h2;\n  st.global.b16 [%rd8+4], %h3;\n"
      "  st.global.b16 [%rd8+6], %h4;\n  st.global.b32 [%rd8+8], %r2;\n  st.global.b32 [%rd8+12], %r3;\n"
      "  ret;\n}\n";
  const std::vector<float> in = {1.0f, -2.0f, 1000.0f, 250.0f, std::nanf(""), -100.0f};
  const test::kernel_run run("", "k", {test::bytes_of(in), std::vector<std::uint8_t>(48, 0xff)}, {3, 1, 1}, {0, 0, 0},
                             {1, 1, 1}, ptx);
  const auto b16 = run.out<std::uint16_t>(1);
  const auto b32 = run.out<std::uint32_t>(1);
  // e4m3, e5m2, e4m3 with .relu, e4m3 from the f16 pair
  EXPECT_EQ((std::vector<std::uint16_t>(b16.begin(), b16.begin() + 4)),
            (std::vector<std::uint16_t>{0x38C0u, 0x3CC0u, 0x3800u, 0x38C0u}));
  EXPECT_EQ((std::vector<std::uint16_t>(b16.begin() + 8, b16.begin() + 12)),
            (std::vector<std::uint16_t>{0x7E78u, 0x645Cu, 0x7E78u, 0x7E78u}));
  EXPECT_EQ((std::vector<std::uint16_t>(b16.begin() + 16, b16.begin() + 20)),
            (std::vector<std::uint16_t>{0x7FECu, 0x7FD6u, 0x7F00u, 0x7FECu}));
  // back to f16 pairs: {1, -2}; {448, 256} and {1024, 256}; {NaN, -96} twice
  EXPECT_EQ(b32[2], 0x3C00C000u);
  EXPECT_EQ(b32[3], 0x3C00C000u);
  EXPECT_EQ(b32[6], 0x5F005C00u);
  EXPECT_EQ(b32[7], 0x64005C00u);
  for (const std::uint32_t v : {b32[10], b32[11]}) {
    EXPECT_EQ(v & 0xffffu, 0xD600u);
    EXPECT_EQ(v >> 16 & 0x7C00u, 0x7C00u); // a NaN: exponent all ones ...
    EXPECT_NE(v >> 16 & 0x03FFu, 0u);      // ... and a mantissa
  }
}

// Named barriers (bar.arrive / bar.sync a, b), as warp-specialized kernels hand data over: warp 1
// stores and arrives at barrier 1 for 64 threads; warp 0, which the interpreter runs first, waits
// there and so loads what warp 1 stored. A count that is not a multiple of 32, two counts for one
// barrier and a barrier that too few threads reach are named.
TEST(PtxNamedBarrier, AWaitingWarpGoesOnOnceTheCountHasArrived) {
  const std::string ptx = ".version 8.0\n.target sm_90\n.address_size 64\n"
                          ".visible .entry k(.param .u64 k_out)\n{\n"
                          "  .reg .pred %p<4>;\n  .reg .b32 %r<20>;\n  .reg .b64 %rd<10>;\n"
                          "  .shared .align 4 .b8 s[128];\n"
                          "  ld.param.u64 %rd1, [k_out];\n  cvta.to.global.u64 %rd2, %rd1;\n"
                          "  mov.u32 %r1, %tid.x;\n  mov.u32 %r9, s;\n"
                          "  setp.lt.u32 %p1, %r1, 32;\n  @%p1 bra $L_consumer;\n"
                          "  sub.u32 %r2, %r1, 32;\n  shl.b32 %r3, %r2, 2;\n  add.u32 %r4, %r9, %r3;\n"
                          "  mul.lo.u32 %r5, %r1, 3;\n  st.shared.u32 [%r4], %r5;\n"
                          "  bar.arrive 1, 64;\n  ret;\n"
                          "$L_consumer:\n  bar.sync 1, 64;\n"
                          "  shl.b32 %r3, %r1, 2;\n  add.u32 %r4, %r9, %r3;\n  ld.shared.u32 %r6, [%r4];\n"
                          "  mul.wide.u32 %rd3, %r1, 4;\n  add.s64 %rd4, %rd2, %rd3;\n  st.global.u32 [%rd4], %r6;\n"
                          "  ret;\n}\n";
  const edited_kernel kernel{ptx, 128, 64};
  const auto out = kernel.run().out<std::uint32_t>(0);
  for (std::uint32_t t = 0; t < 32; ++t) EXPECT_EQ(out[t], (t + 32) * 3) << t;

  const auto error_of = [&](const std::string& from, const std::string& to) { return kernel.error(from, to); };
  EXPECT_NE(error_of("bar.sync 1, 64", "bar.sync 1, 48")
                .find("a barrier for 48 threads (a multiple of 32, at most "
                      "the CTA's 64)"),
            std::string::npos);
  EXPECT_NE(error_of("bar.arrive 1, 64", "bar.arrive 1, 32")
                .find("arrives at barrier 1 for 32 threads while it "
                      "waits for 64"),
            std::string::npos);
  EXPECT_NE(error_of("bar.arrive 1, 64;\n", "").find("waits at barrier 1 for 64 threads, and only 32 ever arrive"),
            std::string::npos);
}

// bar.red (__syncthreads_count / _and / _or) over the CTA's 64 threads, 40 of them with a true
// predicate, and predicates read negated ("!%p") by bar.red and vote; a thread count, and threads
// meeting bar.red and bar.sync at once, are named.
TEST(PtxBarrierReduction, CountsAndTestsThePredicatesOfTheWholeCta) {
  const std::string ptx = ".version 8.0\n.target sm_90\n.address_size 64\n"
                          ".visible .entry k(.param .u64 k_out)\n{\n"
                          "  .reg .pred %p<6>;\n  .reg .b32 %r<20>;\n  .reg .b64 %rd<10>;\n"
                          "  ld.param.u64 %rd1, [k_out];\n  cvta.to.global.u64 %rd2, %rd1;\n"
                          "  mov.u32 %r1, %tid.x;\n  setp.lt.u32 %p1, %r1, 40;\n"
                          "  bar.red.popc.u32 %r2, 0, %p1;\n"
                          "  bar.red.and.pred %p2, 0, %p1;\n  selp.u32 %r3, 1, 0, %p2;\n"
                          "  bar.red.or.pred %p3, 0, !%p1;\n  selp.u32 %r4, 1, 0, %p3;\n"
                          "  barrier.cta.red.popc.aligned.u32 %r5, 0, !%p1;\n"
                          "  vote.sync.ballot.b32 %r6, !%p1, -1;\n"
                          "  mul.wide.u32 %rd3, %r1, 20;\n  add.s64 %rd4, %rd2, %rd3;\n"
                          "  st.global.v4.u32 [%rd4], {%r2, %r3, %r4, %r5};\n  st.global.u32 [%rd4+16], %r6;\n"
                          "  ret;\n}\n";
  const edited_kernel kernel{ptx, 64 * 20, 64};
  const auto out = kernel.run().out<std::uint32_t>(0);
  for (std::uint32_t t = 0; t < 64; ++t) {
    EXPECT_EQ(out[t * 5], 40u) << t;                           // popc
    EXPECT_EQ(out[t * 5 + 1], 0u) << t;                        // and: 24 false
    EXPECT_EQ(out[t * 5 + 2], 1u) << t;                        // or of the negated: 24 true
    EXPECT_EQ(out[t * 5 + 3], 24u) << t;                       // popc of the negated
    EXPECT_EQ(out[t * 5 + 4], t < 32 ? 0u : 0xffffff00u) << t; // lanes 8 to 31 of warp 1 are at or past 40
  }
  const auto error_of = [&](const std::string& from, const std::string& to) { return kernel.error(from, to); };
  EXPECT_NE(error_of("bar.red.popc.u32 %r2, 0, %p1", "bar.red.popc.u32 %r2, 0, 64, %p1")
                .find("for part of the CTA (a thread count) is not followed"),
            std::string::npos);
  EXPECT_NE(error_of("  bar.red.popc.u32 %r2, 0, %p1;\n",
                     "  @%p1 bra $L_other;\n  bar.red.popc.u32 %r2, 0, %p1;\n$L_other:\n  bar.sync 0;\n")
                .find("threads wait at bar.red and 40 at another barrier"),
            std::string::npos);
  EXPECT_NE(error_of("selp.u32 %r3, 1, 0, %p2", "selp.u32 %r3, 1, 0, !%p2").find("a negated register is read only by"),
            std::string::npos);
}

// dp4a (the int8 dot product nvcc makes of a loop of byte products): c plus four byte products,
// each byte signed or not by its operand's type. a's bytes are 2, 1, 0xff, 0x80 and b's 3, 0xff,
// 2, 0x7f (lowest first).
TEST(PtxDp4a, AddsFourByteProductsOfEitherSignedness) {
  const std::string ptx = ".version 8.0\n.target sm_90\n.address_size 64\n"
                          ".visible .entry k(.param .u64 k_out)\n{\n"
                          "  .reg .b32 %r<10>;\n  .reg .b64 %rd<4>;\n"
                          "  ld.param.u64 %rd1, [k_out];\n  cvta.to.global.u64 %rd2, %rd1;\n"
                          "  mov.b32 %r1, 0x80FF0102;\n  mov.b32 %r2, 0x7F02FF03;\n"
                          "  dp4a.s32.s32 %r3, %r1, %r2, 10;\n  dp4a.u32.u32 %r4, %r1, %r2, 10;\n"
                          "  dp4a.s32.u32 %r5, %r1, %r2, 10;\n  dp4a.u32.s32 %r6, %r1, %r2, 10;\n"
                          "  st.global.v4.u32 [%rd2], {%r3, %r4, %r5, %r6};\n  ret;\n}\n";
  const auto out = test::kernel_run("", "k", {std::vector<std::uint8_t>(16, 0)}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, ptx)
                       .out<std::int32_t>(0);
  EXPECT_EQ(out, (std::vector<std::int32_t>{6 - 1 - 2 - 16256 + 10, 6 + 255 + 510 + 16256 + 10,
                                            6 + 255 - 2 - 16256 + 10, 6 - 1 + 510 + 16256 + 10}));
}

// cvt.rna / .rn / .rz .tf32.f32 (tf32 kernels round their inputs so): 1 + 2^-11 is a tie between
// 1 and 1 + 2^-10, which rna takes away from zero and rn to even; 1 + 3 * 2^-12 is past it, so
// rna rounds it up and rz down. And mma.sync forms the model does not follow are named.
TEST(PtxTf32, CvtRoundsToTenMantissaBitsAndOtherMmaFormsAreNamed) {
  const std::string ptx = ".version 8.0\n.target sm_90\n.address_size 64\n"
                          ".visible .entry k(.param .u64 k_in, .param .u64 k_out)\n{\n"
                          "  .reg .b32 %r<20>;\n  .reg .b64 %rd<10>;\n"
                          "  ld.param.u64 %rd1, [k_in];\n  cvta.to.global.u64 %rd2, %rd1;\n"
                          "  ld.param.u64 %rd3, [k_out];\n  cvta.to.global.u64 %rd4, %rd3;\n"
                          "  ld.global.b32 %r1, [%rd2];\n  ld.global.b32 %r2, [%rd2+4];\n"
                          "  cvt.rna.tf32.f32 %r3, %r1;\n  cvt.rn.tf32.f32 %r4, %r1;\n  cvt.rz.tf32.f32 %r5, %r2;\n"
                          "  cvt.rna.tf32.f32 %r6, %r2;\n"
                          "  st.global.b32 [%rd4], %r3;\n  st.global.b32 [%rd4+4], %r4;\n"
                          "  st.global.b32 [%rd4+8], %r5;\n  st.global.b32 [%rd4+12], %r6;\n  ret;\n}\n";
  const std::vector<std::uint32_t> in = {0x3F801000u, 0x3F801800u}; // 1 + 2^-11, 1 + 3 * 2^-12
  const test::kernel_run run("", "k", {test::bytes_of(in), std::vector<std::uint8_t>(16, 0xff)}, {1, 1, 1}, {0, 0, 0},
                             {1, 1, 1}, ptx);
  EXPECT_EQ(run.out<std::uint32_t>(1),
            (std::vector<std::uint32_t>{0x3F802000u, 0x3F800000u, 0x3F800000u, 0x3F802000u}));

  std::string mma = ptx;
  mma.replace(mma.find("  cvt.rna.tf32.f32 %r3"), 0,
              "  mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, {%r1, "
              "%r2}, {%r1, %r2}, {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8};\n");
  try {
    const test::kernel_run refused("", "k", {test::bytes_of(in), std::vector<std::uint8_t>(16, 0xff)}, {32, 1, 1},
                                   {0, 0, 0}, {1, 1, 1}, mma);
    FAIL() << "no error";
  } catch (const ptx_error& e) {
    EXPECT_NE(std::string(e.what()).find("the model follows mma.sync.aligned m16n8kK .row.col"), std::string::npos)
        << e.what();
  }
}

} // namespace
} // namespace bb::ptx
