#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "runner/model/evaluate.hpp"
#include "runner/model/matrix_access.hpp"
#include "runner/ptx/trace.hpp"
#include "tests/unit/ptx_kernel_run.hpp"

namespace bb::ptx {
namespace {

using test::bytes_of;
using test::kernel_run;

// tests/data/ptx/kernels_fixture.cu: instances of kernels/ldmatrix and kernels/cp_async, compiled
// to kernels.ptx by nvcc 13.0 (README there). The requests are checked against what those
// families' shared_access_plan builds, rebuilt here from the same formulas for pitched rows.
constexpr const char* k_kernels_ptx = "kernels.ptx";
constexpr const char* k_ldsm_x4 = "_ZN2bb8ldmatrix15ldmatrix_kernelINS_8tile_1287pitchedILi128EEELi4ELb0EEEvPKjPj";
constexpr const char* k_ldsm_x2_trans =
    "_ZN2bb8ldmatrix15ldmatrix_kernelINS_8tile_1287pitchedILi144EEELi2ELb1EEEvPKjPj";
constexpr const char* k_ldsm_x1 = "_ZN2bb8ldmatrix15ldmatrix_kernelINS_8tile_1287pitchedILi128EEELi1ELb0EEEvPKjPj";
constexpr const char* k_cp_columns_cg =
    "_ZN2bb8cp_async15cp_async_kernelINS_8tile_1287pitchedILi128EEELNS0_5orderE1ELb1EEEvPKfPf";
constexpr const char* k_cp_rows_ca =
    "_ZN2bb8cp_async15cp_async_kernelINS_8tile_1287pitchedILi128EEELNS0_5orderE0ELb0EEEvPKfPf";

std::vector<std::uint32_t> tile_words() {
  std::vector<std::uint32_t> in(1024);
  for (std::uint32_t i = 0; i < 1024; ++i) in[i] = i * 0x9e3779b9u ^ (i << 7);
  return in;
}

std::vector<warp_request> of_kind(const std::vector<warp_request>& all, model::access_kind kind) {
  std::vector<warp_request> out;
  for (const warp_request& r : all)
    if (r.access.kind == kind) out.push_back(r);
  return out;
}

struct ldmatrix_case {
  const char* name;
  int matrices;
  bool trans;
  int pitch;
};

TEST(PtxWarp, LdmatrixFillsRegistersAndMatchesTheFamilysPlan) {
  for (const ldmatrix_case c : {ldmatrix_case{k_ldsm_x4, 4, false, 128}, ldmatrix_case{k_ldsm_x2_trans, 2, true, 144},
                                ldmatrix_case{k_ldsm_x1, 1, false, 128}}) {
    SCOPED_TRACE(c.name);
    const std::vector<std::uint32_t> in = tile_words();
    const kernel_run run(k_kernels_ptx, c.name, {bytes_of(in), std::vector<std::uint8_t>(4096, 0xff)}, {32, 1, 1});
    const auto out = run.out<std::uint32_t>(1);
    auto half = [&](int r, int col) {
      return in[static_cast<std::size_t>(r * 32 + col / 2)] >> (16 * (col % 2)) & 0xffffu;
    };
    const int n = c.matrices, instructions = 32 / n;
    // Registers: kernels/ldmatrix's expected_output for tile 0.
    for (int i = 0; i < instructions * n * 32; ++i) {
      const int t = i % 32, j = i / 32 % n, in_tile = i / 32 / n, g = in_tile / 8, k = in_tile % 8;
      const int row0 = g * 8 * n + 8 * j;
      const std::uint32_t want =
          !c.trans ? half(row0 + t / 4, 8 * k + 2 * (t % 4)) | half(row0 + t / 4, 8 * k + 2 * (t % 4) + 1) << 16
                   : half(row0 + 2 * (t % 4), 8 * k + t / 4) | half(row0 + 2 * (t % 4) + 1, 8 * k + t / 4) << 16;
      ASSERT_EQ(out[static_cast<std::size_t>(i)], want) << "word " << i;
    }
    // Requests: the fill's row-order stores of 4N bytes, then matrix_access(instruction_rows).
    const auto requests = warp_requests(run.result.events);
    const auto stores = of_kind(requests, model::access_kind::store);
    const int w = 4 * n;
    ASSERT_EQ(stores.size(), static_cast<std::size_t>(32 * 128 / (32 * w)));
    for (std::size_t s = 0; s < stores.size(); ++s) {
      model::warp_access want;
      want.kind = model::access_kind::store;
      want.width = w;
      for (int lane = 0; lane < 32; ++lane) {
        const int byte = (static_cast<int>(s) * 32 + lane) * w;
        want.address[static_cast<std::size_t>(lane)] = static_cast<std::uint32_t>(byte / 128 * c.pitch + byte % 128);
      }
      EXPECT_EQ(stores[s].access, want) << "store " << s;
    }
    const auto matrices = of_kind(requests, model::access_kind::ldsm);
    ASSERT_EQ(matrices.size(), static_cast<std::size_t>(instructions));
    for (int in_tile = 0; in_tile < instructions; ++in_tile) {
      const int g = in_tile / 8, k = in_tile % 8;
      std::array<std::uint32_t, 32> rows{};
      for (int lane = 0; lane < 32; ++lane)
        rows[static_cast<std::size_t>(lane)] = static_cast<std::uint32_t>((g * 8 * n + lane % (8 * n)) * c.pitch +
                                                                          16 * k);
      EXPECT_EQ(matrices[static_cast<std::size_t>(in_tile)].access, model::matrix_access(rows, n)) << in_tile;
    }
  }
}

TEST(PtxWarp, CpAsyncCopiesAndMatchesTheFamilysPlan) {
  for (const bool columns : {true, false}) {
    SCOPED_TRACE(columns ? "columns, .cg" : "rows, .ca");
    const std::vector<std::uint32_t> in = tile_words();
    const kernel_run run(k_kernels_ptx, columns ? k_cp_columns_cg : k_cp_rows_ca,
                         {bytes_of(in), std::vector<std::uint8_t>(4096, 0xff)}, {32, 1, 1});
    EXPECT_EQ(run.out<std::uint32_t>(1), in); // copied into shared memory and back out
    const auto requests = warp_requests(run.result.events);
    const auto copies = of_kind(requests, model::access_kind::ldgsts);
    const auto loads = of_kind(requests, model::access_kind::load);
    ASSERT_EQ(copies.size(), 8u);
    ASSERT_EQ(loads.size(), 8u);
    for (int s = 0; s < 8; ++s) {
      model::warp_access copy, load;
      copy.kind = model::access_kind::ldgsts;
      copy.l1_bypass = columns;
      copy.width = load.width = 16;
      std::uint32_t lines = 0;
      for (int lane = 0; lane < 32; ++lane) {
        const int q = s * 32 + lane, row = columns ? lane : q / 8, chunk = columns ? s : q % 8;
        copy.address[static_cast<std::size_t>(lane)] = static_cast<std::uint32_t>(row * 128 + 16 * chunk);
        load.address[static_cast<std::size_t>(lane)] = static_cast<std::uint32_t>(q / 8 * 128 + 16 * (q % 8));
        lines |= 1u << row;
      }
      copy.source_lines = std::popcount(lines);
      EXPECT_EQ(copies[static_cast<std::size_t>(s)].access, copy) << "copy " << s;
      EXPECT_EQ(loads[static_cast<std::size_t>(s)].access, load) << "load " << s;
    }
  }
}

/// A shuffle that names a lane which waits at a barrier instead never runs: the run stops.
TEST(PtxWarp, LanesThatNeverArriveStopTheRun) {
  const std::string ptx = R"(
.version 8.8
.target sm_90
.address_size 64
.visible .entry stuck(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  setp.eq.s32 %p1, %r1, 0;
  @%p1 bra $L_wait;
  shfl.sync.idx.b32 %r2, %r1, 0, 31, -1;
$L_wait:
  bar.sync 0;
  ret;
}
)";
  const module m = parse(ptx);
  launch l;
  l.block = {32, 1, 1};
  l.params = pack_params(m.find("stuck"), {0});
  global_memory g;
  try {
    (void)run_cta(prepare(m, m.find("stuck")), l, g);
    FAIL() << "no error";
  } catch (const ptx_error& e) {
    EXPECT_NE(std::string(e.what()).find("lane 1 of warp 0 waits at 'shfl.sync.idx.b32' for lanes that never reach it"),
              std::string::npos)
        << e.what();
    EXPECT_EQ(e.ptx_line(), 12);
  }
}

} // namespace
} // namespace bb::ptx

namespace bb::ptx {
namespace {

TEST(PtxWarp, StmatrixStoresEachLanesElements) {
  for (const bool trans : {false, true}) {
    SCOPED_TRACE(trans ? ".trans" : "plain");
    std::vector<std::uint32_t> in(128);
    for (std::uint32_t i = 0; i < 128; ++i) in[i] = (i * 2 + 1) << 16 | (i * 2); // halves 2i, 2i + 1
    module m = parse(test::read_fixture("coverage.ptx"));
    global_memory g;
    g.add(0x1000'0000, bytes_of(in));
    g.add(0x2000'0000, std::vector<std::uint8_t>(4096, 0));
    const entry& e = m.find("stmatrix_x4");
    launch l;
    l.block = {32, 1, 1};
    l.params = pack_params(e, {0x1000'0000, 0x2000'0000, trans ? 1u : 0u});
    const cta_result result = run_cta(prepare(m, e), l, g);
    const auto out = test::values_at<std::uint16_t>(g, 0x2000'0000);
    // matrix j, row r, column c lands at byte (8j + r) * 128 + 2c; rows hold 8 halves, the rest stays
    for (std::uint32_t lane = 0; lane < 32; ++lane)
      for (std::uint32_t j = 0; j < 4; ++j)
        for (std::uint32_t h = 0; h < 2; ++h) {
          const std::uint32_t r = trans ? 2 * (lane % 4) + h : lane / 4, c = trans ? lane / 4 : 2 * (lane % 4) + h;
          EXPECT_EQ(out[(8 * j + r) * 64 + c], 2 * (4 * lane + j) + h) << "lane " << lane << " matrix " << j;
        }
    EXPECT_EQ(out[8], 0xbeefu); // past the first 16 bytes of row 0
    std::size_t stsm = 0;
    for (const warp_request& r : warp_requests(result.events))
      if (r.access.kind == model::access_kind::stsm) {
        ++stsm;
        EXPECT_EQ(r.access.width, 16);
        EXPECT_EQ(r.access.active, 0xffffffffu);
        EXPECT_EQ(r.access.address[5], 5u * 128);
      }
    EXPECT_EQ(stsm, 1u);
  }
}

} // namespace
} // namespace bb::ptx

namespace bb::ptx {
namespace {

/// experiments/cute/ldmatrix.yaml's claims, from the kernels' own PTX: ldmatrix.x4 takes 32
/// wavefronts a request over row-major 128-byte rows, 4 padded or byte-swizzled, 8 with the
/// element-offset swizzle; the 16-byte stores 4; the tile comes back out unchanged.
TEST(PtxWarp, CuteTileRoundtripMeetsTheExperimentsClaims) {
  const std::vector<std::pair<const char*, double>> variants = {
      {"_Z14tile_roundtripI9row_majorEvPKN7cutlass6half_tEPS2_", 32},
      {"_Z14tile_roundtripI6paddedEvPKN7cutlass6half_tEPS2_", 4},
      {"_Z14tile_roundtripI8swizzledEvPKN7cutlass6half_tEPS2_", 4},
      {"_Z14tile_roundtripI17swizzled_elementsEvPKN7cutlass6half_tEPS2_", 8}};
  std::vector<std::uint8_t> in(2 * 2048 * 2);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::uint8_t>(i * 131 + 7);
  for (const auto& [name, ldsm] : variants) {
    SCOPED_TRACE(name);
    const kernel_run run("cute.ptx", name, {in, std::vector<std::uint8_t>(in.size(), 0xff)}, {128, 1, 1}, {1, 0, 0},
                         {2, 1, 1});
    const auto out = run.global.buffer(run.addresses[1]);
    EXPECT_TRUE(std::equal(in.begin() + 4096, in.end(), out.begin() + 4096)); // tile 1, this CTA's
    EXPECT_EQ(std::count(out.begin(), out.begin() + 4096, 0xff), 4096);       // tile 0 untouched
    std::map<model::access_kind, std::pair<int, int>> per_kind;               // requests, wavefronts
    for (const warp_request& r : warp_requests(run.result.events)) {
      per_kind[r.access.kind].first += 1;
      per_kind[r.access.kind].second += model::evaluate(r.access).wavefronts;
    }
    ASSERT_EQ(per_kind.size(), 2u);
    EXPECT_EQ(per_kind[model::access_kind::ldsm].first, 8); // 4 warps x 2 ldmatrix.x4
    EXPECT_EQ(per_kind[model::access_kind::ldsm].second, 8 * ldsm);
    EXPECT_EQ(per_kind[model::access_kind::store].first, 8);
    EXPECT_EQ(per_kind[model::access_kind::store].second, 8 * 4);
  }
}

} // namespace
} // namespace bb::ptx
