#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runner/ptx/alike.hpp"
#include "runner/ptx/run.hpp"
#include "runner/ptx/trace.hpp"
#include "tests/unit/ptx_kernel_run.hpp"

namespace bb::ptx {
namespace {

alike_blocks alike_in(const std::string& ptx, const std::string& name) {
  const module m = parse(ptx);
  return blocks_alike(prepare(m, m.find(name)));
}

/// Whether two blocks' requests are the same: instruction, execution and every lane's address.
bool same_requests(const std::vector<warp_request>& a, const std::vector<warp_request>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].warp != b[i].warp || a[i].instruction != b[i].instruction || a[i].execution != b[i].execution ||
        !(a[i].access == b[i].access))
      return false;
  return true;
}

alike_blocks alike_fixture(const std::string& fixture, const std::string& name) {
  return alike_in(test::read_fixture(fixture), name);
}

/// A kernel `k(in, out)` of one .shared array of 1024 bytes whose body is `body`.
std::string alike_kernel(const std::string& body) {
  return ".version 8.0\n.target sm_90\n.address_size 64\n"
         ".visible .entry k(.param .u64 k_in, .param .u64 k_out)\n{\n"
         "  .reg .pred %p<4>;\n  .reg .b32 %r<20>;\n  .reg .b64 %rd<10>;\n"
         "  .shared .align 4 .b8 s[1024];\n"
         "  ld.param.u64 %rd1, [k_in];\n  cvta.to.global.u64 %rd2, %rd1;\n"
         "  ld.param.u64 %rd3, [k_out];\n  cvta.to.global.u64 %rd4, %rd3;\n"
         "  mov.u32 %r1, %tid.x;\n  mov.u32 %r2, %ctaid.x;\n  mov.u32 %r3, s;\n"
         "  shl.b32 %r4, %r1, 2;\n  add.s32 %r5, %r3, %r4;\n" +
         body + "  ret;\n}\n";
}

// %ctaid only in a global address, the shared one from %tid: every block stores the same words.
const std::string k_global_only = alike_kernel("  mul.wide.u32 %rd5, %r2, 128;\n  add.s64 %rd6, %rd2, %rd5;\n"
                                               "  mul.wide.u32 %rd7, %r1, 4;\n  add.s64 %rd8, %rd6, %rd7;\n"
                                               "  ld.global.u32 %r6, [%rd8];\n  st.shared.u32 [%r5], %r6;\n"
                                               "  bar.sync 0;\n  ld.shared.u32 %r7, [%r5];\n"
                                               "  add.s64 %rd9, %rd4, %rd5;\n  add.s64 %rd9, %rd9, %rd7;\n"
                                               "  st.global.u32 [%rd9], %r7;\n");

TEST(PtxAlike, CtaidOnlyInGlobalAddressesMakesBlocksAlikeAndTheyAreTheSame) {
  const alike_blocks a = alike_in(k_global_only, "k");
  EXPECT_TRUE(a.alike) << a.why;
  // What the claim means: two blocks make the same requests, whatever the inputs hold.
  const module m = parse(k_global_only);
  const entry& e = m.find("k");
  const program p = prepare(m, e);
  std::vector<std::vector<warp_request>> per_block;
  for (std::uint32_t cta : {0u, 5u}) {
    std::vector<std::uint8_t> in(8 * 128);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::uint8_t>(i * 37 + cta);
    global_memory g;
    g.add(0x1000'0000, in);
    g.add(0x2000'0000, std::vector<std::uint8_t>(in.size(), 0));
    launch l;
    l.grid = {8, 1, 1};
    l.block = {32, 1, 1};
    l.cta = {cta, 0, 0};
    l.params = pack_params(e, {0x1000'0000, 0x2000'0000});
    per_block.push_back(warp_requests(run_cta(p, l, g).events));
  }
  ASSERT_EQ(per_block[0].size(), 2u);
  EXPECT_TRUE(same_requests(per_block[0], per_block[1]));
}

TEST(PtxAlike, ASharedAddressFromCtaidMakesThemDiffer) {
  const alike_blocks a = alike_in(alike_kernel("  and.b32 %r6, %r2, 1;\n  shl.b32 %r7, %r6, 7;\n"
                                               "  add.s32 %r8, %r5, %r7;\n  st.shared.u32 [%r8], %r1;\n"),
                                  "k");
  EXPECT_FALSE(a.alike);
  EXPECT_NE(a.why.find("shared-memory address depends on %ctaid or on global memory"), std::string::npos) << a.why;
}

TEST(PtxAlike, ALoopBoundReadFromGlobalMemoryMakesThemDiffer) {
  const alike_blocks a = alike_in(alike_kernel("  ld.global.u32 %r6, [%rd2];\n  mov.u32 %r7, 0;\n"
                                               "$L_loop:\n  st.shared.u32 [%r5], %r7;\n  add.s32 %r7, %r7, 1;\n"
                                               "  setp.lt.u32 %p1, %r7, %r6;\n  @%p1 bra $L_loop;\n"),
                                  "k");
  EXPECT_FALSE(a.alike);
  EXPECT_NE(a.why.find("different paths"), std::string::npos) << a.why;
}

TEST(PtxAlike, AnIndexWrittenToSharedMemoryAndReadBackIsFollowed) {
  // A key from global memory goes through shared memory before it picks a shared word.
  const alike_blocks a = alike_in(alike_kernel("  ld.global.u32 %r6, [%rd2];\n  st.shared.u32 [%r5], %r6;\n"
                                               "  bar.sync 0;\n  ld.shared.u32 %r7, [%r3];\n  and.b32 %r8, %r7, 255;\n"
                                               "  shl.b32 %r9, %r8, 2;\n  add.s32 %r10, %r3, %r9;\n"
                                               "  atom.shared.add.u32 %r11, [%r10], 1;\n"),
                                  "k");
  EXPECT_FALSE(a.alike);
  EXPECT_NE(a.why.find("address"), std::string::npos) << a.why;
}

TEST(PtxAlike, AGuardFromTheClockOrCtaidOnASharedAccessMakesThemDiffer) {
  EXPECT_FALSE(alike_in(alike_kernel("  mov.u32 %r6, %clock;\n  and.b32 %r7, %r6, 1;\n  setp.eq.u32 %p1, %r7, 0;\n"
                                     "  @%p1 st.shared.u32 [%r5], %r1;\n"),
                        "k")
                   .alike);
  const alike_blocks a = alike_in(alike_kernel("  setp.eq.u32 %p1, %r2, 0;\n  @%p1 st.shared.u32 [%r5], %r1;\n"), "k");
  EXPECT_FALSE(a.alike);
  EXPECT_NE(a.why.find("guarded"), std::string::npos) << a.why;
}

TEST(PtxAlike, TheFixturesAsTheyAre) {
  // kernels/ldmatrix and kernels/cp_async: %ctaid picks the tile in global memory only.
  for (const char* name : {"_ZN2bb8ldmatrix15ldmatrix_kernelINS_8tile_1287pitchedILi128EEELi4ELb0EEEvPKjPj",
                           "_ZN2bb8cp_async15cp_async_kernelINS_8tile_1287pitchedILi128EEELNS0_5orderE1ELb1EEEvPKfPf"})
    EXPECT_TRUE(alike_fixture("kernels.ptx", name).alike) << name;
  EXPECT_TRUE(alike_fixture("cute.ptx", "_Z14tile_roundtripI8swizzledEvPKN7cutlass6half_tEPS2_").alike);
  // The histogram's bins are its keys (global memory); the transpose checks its bounds with %ctaid.
  EXPECT_FALSE(alike_fixture("histogram.ptx", "histogram").alike);
  EXPECT_FALSE(alike_fixture("transpose.ptx", test::k_naive).alike);
}

TEST(PtxAlike, TheCuteFixtureBlocksMakeTheSameRequests) {
  const char* name = "_Z14tile_roundtripI8swizzledEvPKN7cutlass6half_tEPS2_";
  std::vector<std::uint8_t> in(2 * 2048 * 2);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::uint8_t>(i * 131 + 7);
  const test::kernel_run a("cute.ptx", name, {in, std::vector<std::uint8_t>(in.size(), 0)}, {128, 1, 1}, {0, 0, 0},
                           {2, 1, 1});
  const test::kernel_run b("cute.ptx", name, {in, std::vector<std::uint8_t>(in.size(), 0)}, {128, 1, 1}, {1, 0, 0},
                           {2, 1, 1});
  const auto ra = warp_requests(a.result.events), rb = warp_requests(b.result.events);
  ASSERT_FALSE(ra.empty());
  EXPECT_TRUE(same_requests(ra, rb));
}

} // namespace
} // namespace bb::ptx
