// TMA loads of kernels/tma, run by the interpreter from their PTX (tests/data/ptx/tma.ptx): the box a
// cp.async.bulk.tensor copies through a tensor map lands swizzled as the hardware lays it (the
// kernel's read-back undoes the swizzle, so its output is its input), the mbarrier's phase
// completes with the copy's bytes, and the read-back's requests are those of the family's plan.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "runner/model/matrix_access.hpp"
#include "runner/ptx/tensor_map.hpp"
#include "runner/ptx/trace.hpp"
#include "tests/unit/ptx_kernel_run.hpp"

namespace bb::ptx {
namespace {

using model::tma_swizzle;

struct tma_case {
  int row_bytes;
  tma_swizzle mode;
};

std::string entry_of(const tma_case& c) {
  return "_ZN2bb3tma10tma_kernelILi" + std::to_string(c.row_bytes) + "ELNS_5model11tma_swizzleE" +
         std::to_string(static_cast<int>(c.mode)) + "EEEv14CUtensorMap_stPf";
}

constexpr std::uint64_t k_tensor = 0x1000'0000, k_box_out = 0x2000'0000;

/// Block `cta` of a two-box launch: the map covers 64 rows, box 32 rows from row 32 * cta.
struct tma_run {
  module m;
  global_memory global;
  cta_result result;
  std::vector<float> in, out;

  tma_run(const tma_case& c, std::uint32_t cta, std::string ptx = {}, bool with_map = true) {
    m = parse(ptx.empty() ? test::read_fixture("tma.ptx") : ptx);
    const std::size_t row = static_cast<std::size_t>(c.row_bytes) / 4;
    in.resize(64 * row);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i) * 0.5f - 7.0f;
    global.add(k_tensor, test::bytes_of(in));
    global.add(k_box_out, std::vector<std::uint8_t>(in.size() * 4, 0xff));
    tensor_map map;
    map.global = k_tensor;
    map.rank = 2;
    map.element_bytes = 4;
    map.dims = {row, 64};
    map.strides = {0, static_cast<std::uint64_t>(c.row_bytes)};
    map.box = {static_cast<std::uint32_t>(row), 32};
    map.swizzle_bits = static_cast<std::uint32_t>(c.mode);
    const entry& e = m.find(entry_of(c));
    launch l;
    l.grid = {2, 1, 1};
    l.block = {32, 1, 1};
    l.cta = {cta, 0, 0};
    l.params = pack_params(e, {0, k_box_out});
    const auto bytes = map.encode();
    if (with_map) std::memcpy(l.params.data() + e.params[0].offset, bytes.data(), bytes.size());
    result = run_cta(prepare(m, e), l, global);
    out = test::values_at<float>(global, k_box_out);
  }
};

const tma_case k_cases[] = {{32, tma_swizzle::none},
                            {128, tma_swizzle::none},
                            {32, tma_swizzle::b32},
                            {64, tma_swizzle::b64},
                            {128, tma_swizzle::b128}};

TEST(PtxTma, TheBoxLandsSwizzledAndTheReadBackUndoesIt) {
  for (const tma_case& c : k_cases) {
    SCOPED_TRACE(entry_of(c));
    const tma_run run(c, 1);
    const std::size_t box = 32 * static_cast<std::size_t>(c.row_bytes) / 4;
    for (std::size_t i = 0; i < box; ++i) ASSERT_EQ(run.out[box + i], run.in[box + i]) << i; // box 1: rows 32..63
    EXPECT_TRUE(std::isnan(run.out[0])) << "box 0 is not this block's: still the poison";
  }
}

TEST(PtxTma, TheReadBackIsTheFamilysPlanAndTheCopyMakesNoRequest) {
  for (const tma_case& c : k_cases) {
    SCOPED_TRACE(entry_of(c));
    const tma_run run(c, 0);
    const auto requests = warp_requests(run.result.events);
    ASSERT_EQ(requests.size(), static_cast<std::size_t>(c.row_bytes / 16)); // the LDS.128 alone
    for (int k = 0; k < c.row_bytes / 16; ++k) {
      model::warp_access want;
      want.width = 16;
      for (int lane = 0; lane < 32; ++lane)
        want.address[static_cast<std::size_t>(lane)] =
            model::tma_swizzled(static_cast<std::uint32_t>(lane * c.row_bytes + 16 * k), c.mode);
      EXPECT_EQ(requests[static_cast<std::size_t>(k)].access, want) << "chunk " << k;
    }
  }
}

TEST(PtxTma, AnMbarrierThatNeverCompletesAndAForeignMapAreNamed) {
  const std::string ptx = test::read_fixture("tma.ptx");
  std::string more = ptx; // expect twice the bytes the copy brings: the phase never completes
  for (std::size_t at = 0; (at = more.find("mov.u32 \t%r4, 4096;", at)) != std::string::npos;)
    more.replace(at, 19, "mov.u32 \t%r4, 8192;");
  const auto error_of = [&](const std::string& text, bool with_map = true) {
    try {
      const tma_run run({128, tma_swizzle::b128}, 0, text, with_map);
    } catch (const ptx_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of(more).find("waits on an mbarrier whose phase never completes"), std::string::npos)
      << error_of(more);
  EXPECT_NE(error_of(ptx, false)
                .find("is not one bankbench made (give the kernel's CUtensorMap parameter as a "
                      "tensor_map argument)"),
            std::string::npos)
      << error_of(ptx, false);
}

} // namespace
} // namespace bb::ptx

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
