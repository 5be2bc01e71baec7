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

std::string tma_entry(const tma_case& c) {
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
    const entry& e = m.find(tma_entry(c));
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
    SCOPED_TRACE(tma_entry(c));
    const tma_run run(c, 1);
    const std::size_t box = 32 * static_cast<std::size_t>(c.row_bytes) / 4;
    for (std::size_t i = 0; i < box; ++i) ASSERT_EQ(run.out[box + i], run.in[box + i]) << i; // box 1: rows 32..63
    EXPECT_TRUE(std::isnan(run.out[0])) << "box 0 is not this block's: still the poison";
  }
}

TEST(PtxTma, TheReadBackIsTheFamilysPlanAndTheCopyMakesNoRequest) {
  for (const tma_case& c : k_cases) {
    SCOPED_TRACE(tma_entry(c));
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
