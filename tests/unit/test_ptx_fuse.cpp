#include <gtest/gtest.h>

#include <numeric>
#include <set>
#include <string>

#include "runner/model/evaluate.hpp"
#include "runner/ptx/fuse.hpp"
#include "runner/ptx/trace.hpp"
#include "tests/unit/ptx_kernel_run.hpp"

namespace bb::ptx {
namespace {

using test::bytes_of;

// The load requests of `events`, after warp_requests, with their widths and wavefronts.
struct load_requests {
  std::uint64_t requests = 0, wavefronts = 0;
  std::set<int> widths;
};

load_requests loads_of(const std::vector<shared_event>& events) {
  load_requests out;
  for (const warp_request& r : warp_requests(events)) {
    if (r.access.kind != model::access_kind::load) continue;
    out.requests += 1;
    out.wavefronts += static_cast<std::uint64_t>(model::evaluate(r.access).wavefronts);
    out.widths.insert(r.access.width);
  }
  return out;
}

// experiments/source/histogram.cu with COPIES=8 (tests/data/ptx/README.md): the final loop's eight
// ld.shared.u32 at [%r24+0..28] are two LDS.128 per thread on an H100. Measured there over 1024
// blocks of 256 threads: 16384 load requests (16 per block) of 8 wavefronts each.
TEST(PtxFuse, TheHistogramsFinalLoadsFuseIntoTwo16ByteLoadsAsOnTheGpu) {
  const module m = parse(test::read_fixture("histogram.ptx"));
  const entry& e = m.find("histogram");
  const fusion_plan plan = plan_fusion(e);
  ASSERT_EQ(plan.chunks.size(), 2u);
  for (const fusion_chunk& c : plan.chunks) {
    EXPECT_EQ(c.element_bytes, 4);
    EXPECT_EQ(c.bytes(), 16);
    EXPECT_EQ(e.body.at(c.members.front()).opcode, "ld.shared.u32");
  }

  constexpr std::uint64_t k_n = 4096; // one block of 256 threads, 16 bytes each
  std::vector<std::uint8_t> data(k_n);
  for (std::size_t i = 0; i < k_n; ++i) data[i] = static_cast<std::uint8_t>(i * 7);
  global_memory global;
  global.add(0x1000'0000, data);
  global.add(0x2000'0000, bytes_of(std::vector<std::uint32_t>(256, 0)));
  launch l;
  l.block = {256, 1, 1};
  l.params = pack_params(e, {0x1000'0000, 0x2000'0000, k_n});
  const cta_result r = run_cta(prepare(m, e), l, global);
  const auto bins = test::values_at<std::uint32_t>(global, 0x2000'0000);
  EXPECT_EQ(std::accumulate(bins.begin(), bins.end(), std::uint64_t{0}), k_n);
  EXPECT_EQ(bins[0], 16u); // 7 is odd: i * 7 mod 256 hits every byte 16 times

  const load_requests unfused = loads_of(r.events);
  EXPECT_EQ(unfused.requests, 8u * 8);
  const load_requests fused = loads_of(fuse_adjacent(plan, r.events));
  EXPECT_EQ(fused.requests, 8u * 2);
  EXPECT_EQ(fused.wavefronts, 8u * 2 * 8);
  EXPECT_EQ(fused.widths, std::set<int>{16});
  // Only the loads change: the atomics and the zeroing stores are as they were.
  EXPECT_EQ(fuse_adjacent(plan, r.events).size(), r.events.size() - 256 * 6);
}

// A kernel of one warp: lane t reads four words at s + t * 16 + %r1 (the parameter), with the
// accesses between `ld.param` and `ret` given by `body`.
std::string kernel(const std::string& body) {
  return ".version 8.0\n.target sm_90\n.address_size 64\n"
         ".visible .entry k(.param .u32 k_param_0)\n{\n.reg .b32 %r<20>;\n.reg .pred %p<2>;\n"
         ".shared .align 16 .b8 s[1024];\n"
         "ld.param.u32 %r1, [k_param_0];\nmov.u32 %r2, %tid.x;\nshl.b32 %r3, %r2, 4;\n"
         "mov.u32 %r4, s;\nadd.s32 %r5, %r4, %r3;\nadd.s32 %r6, %r5, %r1;\n" +
         body + "ret;\n}\n";
}

const std::string k_four_loads = "ld.shared.u32 %r10, [%r6+4];\nld.shared.u32 %r11, [%r6];\n"
                                 "ld.shared.u32 %r12, [%r6+8];\nld.shared.u32 %r13, [%r6+12];\n";

std::vector<shared_event> run_kernel(const module& m, std::uint32_t offset) {
  const entry& e = m.find("k");
  launch l;
  l.block = {32, 1, 1};
  l.params = pack_params(e, {offset});
  global_memory global;
  return run_cta(prepare(m, e), l, global).events;
}

TEST(PtxFuse, AlignedAddressesFuseAndMisalignedOnesFuseLessOrNot) {
  const module m = parse(kernel(k_four_loads));
  const fusion_plan plan = plan_fusion(m.find("k"));
  ASSERT_EQ(plan.chunks.size(), 1u);
  EXPECT_EQ(plan.chunks[0].bytes(), 16);

  // Offset 0: every lane's first word is 16-byte aligned: one 16-byte request at the lowest address.
  auto aligned = fuse_adjacent(plan, run_kernel(m, 0));
  ASSERT_EQ(aligned.size(), 32u);
  EXPECT_EQ(aligned[5].width, 16);
  EXPECT_EQ(aligned[5].address, 5u * 16);
  EXPECT_EQ(aligned[5].instruction, plan.chunks[0].members[1]); // [%r6+4] comes first in the code
  // Offset 8: not 16-byte aligned, but both halves are 8-byte aligned.
  const load_requests halves = loads_of(fuse_adjacent(plan, run_kernel(m, 8)));
  EXPECT_EQ(halves.requests, 2u);
  EXPECT_EQ(halves.widths, std::set<int>{8});
  // Offset 4: no half is 8-byte aligned, so nothing fuses.
  const auto events = run_kernel(m, 4);
  EXPECT_EQ(fuse_adjacent(plan, events).size(), events.size());
  EXPECT_EQ(loads_of(fuse_adjacent(plan, events)).requests, 4u);
}

TEST(PtxFuse, GapsBarriersStoresAndOtherBasesStopAFusion) {
  // [%r6], [%r6+8]: not contiguous.
  EXPECT_TRUE(plan_fusion(parse(kernel("ld.shared.u32 %r10, [%r6];\nld.shared.u32 %r11, [%r6+8];\n")).find("k"))
                  .chunks.empty());
  // A barrier, a shared store or a new value of the base between the two halves of a run.
  for (const std::string between : {"bar.sync 0;\n", "st.shared.u32 [%r5+512], %r2;\n", "add.s32 %r6, %r6, 16;\n"}) {
    const std::string body = "ld.shared.u32 %r10, [%r6];\nld.shared.u32 %r11, [%r6+4];\n" + between +
                             "ld.shared.u32 %r12, [%r6+8];\nld.shared.u32 %r13, [%r6+12];\n";
    const fusion_plan plan = plan_fusion(parse(kernel(body)).find("k"));
    ASSERT_EQ(plan.chunks.size(), 2u) << between;
    EXPECT_EQ(plan.chunks[0].bytes(), 8) << between;
    EXPECT_EQ(plan.chunks[1].bytes(), 8) << between;
  }
  // Two bases, and a run that starts at an offset that is no multiple of 8: [+4], then [+8, +16).
  const fusion_plan mixed = plan_fusion(
      parse(kernel("ld.shared.u32 %r10, [%r6+4];\nld.shared.u32 %r11, [%r5+4];\nld.shared.u32 %r12, [%r6+8];\n"
                   "ld.shared.u32 %r13, [%r6+12];\n"))
          .find("k"));
  ASSERT_EQ(mixed.chunks.size(), 1u);
  EXPECT_EQ(mixed.chunks[0].bytes(), 8);
  // A load that is not .shared (the generic space) is not fused: ptxas cannot see it is shared.
  EXPECT_TRUE(plan_fusion(parse(kernel("ld.u32 %r10, [%r6];\nld.u32 %r11, [%r6+4];\n")).find("k")).chunks.empty());
}

TEST(PtxFuse, AdjacentStoresFuseLikeLoads) {
  const module m = parse(kernel("st.shared.u32 [%r6+4], %r2;\nst.shared.u32 [%r6], %r2;\n"));
  const fusion_plan plan = plan_fusion(m.find("k"));
  ASSERT_EQ(plan.chunks.size(), 1u);
  const auto events = fuse_adjacent(plan, run_kernel(m, 0));
  ASSERT_EQ(events.size(), 32u);
  EXPECT_EQ(events[3].kind, model::access_kind::store);
  EXPECT_EQ(events[3].width, 8);
  EXPECT_EQ(events[3].address, 3u * 16);
}

TEST(PtxFuse, TwoV2LoadsOf4BytesFuseInto16BytesAndGuardsMustMatch) {
  const module m = parse(kernel("ld.shared.v2.u32 {%r10, %r11}, [%r6+8];\nld.shared.v2.u32 {%r12, %r13}, [%r6];\n"));
  const fusion_plan plan = plan_fusion(m.find("k"));
  ASSERT_EQ(plan.chunks.size(), 1u);
  EXPECT_EQ(plan.chunks[0].element_bytes, 8);
  const load_requests fused = loads_of(fuse_adjacent(plan, run_kernel(m, 0)));
  EXPECT_EQ(fused.requests, 1u);
  EXPECT_EQ(fused.widths, std::set<int>{16});
  // At offset 8 the 16-byte load is misaligned and its 8-byte halves are single loads: no fusion.
  EXPECT_EQ(loads_of(fuse_adjacent(plan, run_kernel(m, 8))).requests, 2u);
  // The same loads under two guards are two runs.
  EXPECT_TRUE(plan_fusion(parse(kernel("setp.eq.u32 %p1, %r1, 0;\n@%p1 ld.shared.u32 %r10, [%r6];\n"
                                       "ld.shared.u32 %r11, [%r6+4];\n"))
                              .find("k"))
                  .chunks.empty());
}

} // namespace
} // namespace bb::ptx
