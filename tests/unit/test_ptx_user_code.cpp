// What users' kernels hold beside shared-memory accesses, run by the interpreter: elect.sync, device
// printf and assert (calls), and f16x2 / bf16x2 arithmetic.
#include <gtest/gtest.h>

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

} // namespace
} // namespace bb::ptx
