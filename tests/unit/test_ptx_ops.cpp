#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <set>
#include <vector>

#include "runner/ptx/trace.hpp"
#include "tests/unit/ptx_kernel_run.hpp"

namespace bb::ptx {
namespace {

using test::bytes_of;
using test::kernel_run;

// tests/data/ptx/coverage.cu, compiled to coverage.ptx by nvcc 13.0 (README there).
constexpr const char* k_coverage_ptx = "coverage.ptx";

struct float4_host {
  float x, y, z, w;
};

TEST(PtxOps, VectorSharedAccessesAreOneEventPerLane) {
  std::vector<float4_host> in(32);
  for (int t = 0; t < 32; ++t) in[static_cast<std::size_t>(t)] = {t * 1.5f, t - 7.0f, t * 0.25f, 100.0f - t};
  const kernel_run run(k_coverage_ptx, "vectors",
                       {bytes_of(in), std::vector<std::uint8_t>(32 * 16, 0xff),
                        std::vector<std::uint8_t>(32 * 16, 0xff), std::vector<std::uint8_t>(32 * 16, 0xff)},
                       {32, 1, 1});
  const auto out = run.out<float4_host>(1);
  const auto dout = run.out<double>(2);
  const auto uout = run.out<std::uint32_t>(3);
  for (std::size_t t = 0; t < 32; ++t) {
    const float4_host& a = in[31 - t];
    const float4_host& b = in[(t * 2) % 32];
    EXPECT_EQ(out[t].x, a.x + b.x) << t;
    EXPECT_EQ(out[t].y, a.y + b.y) << t;
    EXPECT_EQ(out[t].z, a.z) << t;
    EXPECT_EQ(out[t].w, a.w) << t;
    EXPECT_EQ(dout[2 * t], static_cast<double>(in[t ^ 1].z)) << t;
    EXPECT_EQ(dout[2 * t + 1], static_cast<double>(in[t ^ 1].w)) << t;
    const std::size_t s = (t + 5) % 32;
    EXPECT_EQ(uout[4 * t], std::bit_cast<std::uint32_t>(in[s].x)) << t;
    EXPECT_EQ(uout[4 * t + 1], s);
    EXPECT_EQ(uout[4 * t + 3], 3 * s);
  }
  // 4 stores (v4.f32, v2.f32, v2.f64, v4.u32) and 4 loads, each one request of 32 lanes
  const auto requests = warp_requests(run.result.events);
  ASSERT_EQ(requests.size(), 8u);
  std::multiset<int> widths;
  for (const warp_request& r : requests) {
    EXPECT_EQ(r.access.active, 0xffffffffu);
    widths.insert(r.access.width);
  }
  EXPECT_EQ(widths, (std::multiset<int>{8, 8, 16, 16, 16, 16, 16, 16}));
  EXPECT_EQ(run.result.events.size(), 8u * 32);
}

/// The lanes of `v` (one warp) after __shfl_down_sync(~0, v, o).
std::vector<int> down(const std::vector<int>& v, int o) {
  std::vector<int> r(v);
  for (std::size_t l = 0; l + static_cast<std::size_t>(o) < 32; ++l) r[l] = v[l + static_cast<std::size_t>(o)];
  return r;
}

TEST(PtxOps, WarpShufflesVotesAndMatchesExchangeLanes) {
  std::vector<int> in(64);
  for (int t = 0; t < 64; ++t) in[static_cast<std::size_t>(t)] = (t * 37 + 11) % 100;
  const kernel_run run(k_coverage_ptx, "warp_ops", {bytes_of(in), std::vector<std::uint8_t>(64 * 12 * 4, 0xff)},
                       {64, 1, 1});
  const auto out = run.out<int>(1);
  for (std::size_t w = 0; w < 2; ++w) {
    const std::vector<int> v(in.begin() + static_cast<std::ptrdiff_t>(32 * w),
                             in.begin() + static_cast<std::ptrdiff_t>(32 * w + 32));
    std::vector<int> sum = v;
    for (int o = 16; o > 0; o >>= 1) {
      const std::vector<int> moved = down(sum, o);
      for (std::size_t l = 0; l < 32; ++l) sum[l] += moved[l];
    }
    std::uint32_t ballot = 0;
    int total = 0;
    bool any = false;
    for (std::size_t l = 0; l < 32; ++l) {
      ballot |= static_cast<std::uint32_t>(v[l] & 1) << l;
      total += v[l];
      any = any || v[l] > 90;
    }
    for (std::size_t l = 0; l < 32; ++l) {
      const int* o = &out[12 * (32 * w + l)];
      EXPECT_EQ(o[0], sum[l]) << "lane " << l;
      EXPECT_EQ(o[1], v[l >= 3 ? l - 3 : l]) << "lane " << l;
      EXPECT_EQ(o[2], v[l ^ 5]) << "lane " << l;
      EXPECT_EQ(o[3], v[(l * 7) % 32]) << "lane " << l;
      EXPECT_EQ(o[4], v[(l & ~std::size_t{7}) + 2]) << "lane " << l;
      EXPECT_EQ(static_cast<std::uint32_t>(o[5]), ballot);
      EXPECT_EQ(o[6], any ? 1 : 0);
      EXPECT_EQ(o[7], 1);
      std::uint32_t same = 0;
      for (std::size_t k = 0; k < 32; ++k) same |= (v[k] % 4 == v[l] % 4 ? 1u : 0u) << k;
      EXPECT_EQ(static_cast<std::uint32_t>(o[8]), same) << "lane " << l;
      EXPECT_EQ(o[9], total);
      EXPECT_EQ(o[10], l < 20 ? 0xfffff : -1) << "lane " << l; // the lanes that took the branch
      EXPECT_EQ(o[11], l < 16 ? v[l == 15 ? l : l + 1] : -2) << "lane " << l;
    }
  }
}

TEST(PtxOps, SharedAndGlobalAtomics) {
  std::vector<float> fin(32);
  for (int t = 0; t < 32; ++t) fin[static_cast<std::size_t>(t)] = 0.5f * static_cast<float>(t);
  kernel_run run(k_coverage_ptx, "atomics",
                 {bytes_of(fin), std::vector<std::uint8_t>(32 * 4, 0), std::vector<std::uint8_t>(8 * 4, 0),
                  std::vector<std::uint8_t>(8 * 8, 0), std::vector<std::uint8_t>(8 * 4, 0)},
                 {32, 1, 1});
  const auto bins = run.out<std::uint32_t>(1);
  const auto fsum = run.out<float>(2);
  const auto big = run.out<std::uint64_t>(3);
  const auto misc = run.out<std::int32_t>(4);
  for (std::size_t k = 0; k < 16; ++k) EXPECT_EQ(bins[k], 2u) << k;
  EXPECT_EQ(bins[16], 496u); // red.global.add.u32 of every thread index
  EXPECT_EQ(bins[17], 0u);
  for (std::size_t k = 0; k < 8; ++k) EXPECT_EQ(fsum[k], 0.5f * static_cast<float>(4 * k + 4 * 8 * 3 / 2)) << k;
  for (std::size_t k = 0; k < 4; ++k) EXPECT_EQ(big[k], static_cast<std::uint64_t>(8 * k + 112) << 33) << k;
  EXPECT_EQ(big[4], 7u); // the first compare-and-swap wins
  EXPECT_EQ(misc[0], 32);
  EXPECT_EQ(misc[1], 496); // the shared CAS loop's sum
  EXPECT_EQ(misc[2], 93);
  EXPECT_EQ(misc[3], -31);
  EXPECT_EQ(misc[4], 42);
  // per thread 7 global atomics or reductions, then 8 float and 4 64-bit adds
  EXPECT_EQ(run.result.global_atomics, 32u * 7 + 8 + 4);
  std::size_t atom_events = 0;
  for (const shared_event& e : run.result.events) atom_events += e.kind == model::access_kind::atom ? 1 : 0;
  EXPECT_GE(atom_events, 3u * 32); // float add, 64-bit add, and at least one CAS per thread

  // Written bytes: bins 0..16, and nothing past them; clear_written forgets them.
  const auto written = [&](std::size_t buffer, std::size_t first, std::size_t last) {
    std::size_t n = 0;
    for (std::size_t i = first; i < last; ++i) n += written_at(run.global.written(run.addresses[buffer]), i) ? 1 : 0;
    return n;
  };
  const std::size_t bin_bytes = run.global.buffer(run.addresses[1]).size();
  EXPECT_EQ(written(1, 0, 17 * 4), 17u * 4);
  EXPECT_EQ(written(1, 17 * 4, bin_bytes), 0u);
  EXPECT_TRUE(run.global.written(run.addresses[0]).empty()); // the input: never written, no mask
  run.global.clear_written();
  EXPECT_EQ(written(1, 0, bin_bytes), 0u);
}

__extension__ using u128 = unsigned __int128;
__extension__ using s128 = __int128;

// float16 on the host from its definition, not from the interpreter's conversions (nor the
// compiler's _Float16, which not every host compiler has): every finite non-negative value, in
// order of its bits.
const std::vector<double>& half_values() {
  static const std::vector<double> values = [] {
    std::vector<double> v;
    for (int h = 0; h < 0x7c00; ++h) {
      const int exponent = h >> 10, fraction = h & 0x3ff;
      v.push_back(exponent == 0 ? std::ldexp(fraction, -24) : std::ldexp(1024 + fraction, exponent - 25));
    }
    return v;
  }();
  return values;
}
/// `f` rounded to the nearest float16, ties to even; 65520 and beyond to infinity.
std::uint16_t half_rn(float f) {
  const auto sign = static_cast<std::uint16_t>(std::signbit(f) ? 0x8000 : 0);
  const double a = std::fabs(static_cast<double>(f));
  if (a >= 65520.0) return sign | 0x7c00;
  const auto& v = half_values();
  const auto hi = static_cast<std::size_t>(std::lower_bound(v.begin(), v.end(), a) - v.begin());
  if (hi == v.size()) return static_cast<std::uint16_t>(sign | (v.size() - 1));
  if (v[hi] == a || hi == 0) return static_cast<std::uint16_t>(sign | hi);
  const std::size_t lo = hi - 1;
  const double below = a - v[lo], above = v[hi] - a;
  return static_cast<std::uint16_t>(sign | (below < above ? lo : above < below ? hi : (lo % 2 == 0 ? lo : hi)));
}
/// Toward zero: the largest float16 not above |f|.
std::uint16_t half_rz(float f) {
  const auto sign = static_cast<std::uint16_t>(std::signbit(f) ? 0x8000 : 0);
  const auto& v = half_values();
  const auto above = std::upper_bound(v.begin(), v.end(), std::fabs(static_cast<double>(f)));
  return static_cast<std::uint16_t>(sign | static_cast<std::size_t>(above - v.begin() - 1));
}
/// The value of finite float16 bits `h`.
float half_value(std::uint16_t h) {
  const double a = half_values()[h & 0x7fffu];
  return static_cast<float>((h & 0x8000u) != 0 ? -a : a);
}

TEST(PtxOps, IntegerAndConversionInstructions) {
  std::vector<std::uint32_t> in(64);
  std::uint64_t s = 12345;
  for (std::uint32_t& v : in) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    v = static_cast<std::uint32_t>(s >> 32);
  }
  in[3] = 0; // clz and popc of zero
  in[4] = 0x80000000u;
  const kernel_run run(k_coverage_ptx, "int_ops",
                       {bytes_of(in), std::vector<std::uint8_t>(32 * 24 * 4, 0xff),
                        std::vector<std::uint8_t>(64 * 8, 0xff), std::vector<std::uint8_t>(32 * 2, 0xff),
                        std::vector<std::uint8_t>(32 * 4, 0xff), std::vector<std::uint8_t>(64 * 2, 0xff)},
                       {32, 1, 1});
  const auto out = run.out<std::uint32_t>(1);
  const auto out64 = run.out<std::uint64_t>(2);
  const auto out16 = run.out<std::int16_t>(3);
  const auto outf = run.out<float>(4);
  const auto outh = run.out<std::uint16_t>(5);
  for (std::uint32_t t = 0; t < 32; ++t) {
    const std::uint32_t a = in[t], b = in[t + 32];
    const auto sa = static_cast<std::int32_t>(a), sb = static_cast<std::int32_t>(b);
    const std::uint64_t w = (std::uint64_t{a} << 32) | b;
    const std::uint32_t* o = &out[24 * std::size_t{t}];
    EXPECT_EQ(o[0], static_cast<std::uint32_t>((std::uint64_t{a} * b) >> 32)) << t;
    EXPECT_EQ(o[1], static_cast<std::uint32_t>((std::int64_t{sa} * sb) >> 32)) << t;
    std::uint32_t rev = 0;
    for (int i = 0; i < 32; ++i) rev |= (a >> i & 1) << (31 - i);
    EXPECT_EQ(o[2], rev) << t;
    EXPECT_EQ(o[3], static_cast<std::uint32_t>(std::popcount(a) + std::popcount(w))) << t;
    EXPECT_EQ(o[4], static_cast<std::uint32_t>(std::countl_zero(a) + std::countl_zero(w >> (t % 40)))) << t;
    std::uint32_t perm = 0;
    const std::uint64_t both = (std::uint64_t{b} << 32) | a;
    for (int i = 0; i < 4; ++i) perm |= static_cast<std::uint32_t>(both >> (8 * (b >> (4 * i) & 7)) & 0xff) << (8 * i);
    EXPECT_EQ(o[5], perm) << t;
    EXPECT_EQ(o[6], static_cast<std::uint32_t>((both << (t % 32)) >> 32)) << t;
    EXPECT_EQ(o[7], static_cast<std::uint32_t>(both >> std::min(t + 10, 32u))) << t;
    EXPECT_EQ(o[8], (a & b) ^ (~a | (b >> 3))) << t;
    EXPECT_EQ(o[9], std::min(a, b) + static_cast<std::uint32_t>(std::max(sa, sb))) << t;
    EXPECT_EQ(o[10], (a >> 5) & 0x3ffu) << t;
    // bfe.s32 a, pos t, len 9: sign-extended from the field's top bit
    const std::uint32_t field = t + 9 <= 32 ? (a >> t) & 0x1ffu : a >> t;
    const int top = static_cast<int>(std::min(t + 8, 31u)) - static_cast<int>(t);
    const std::uint32_t bfe = (field >> top & 1) != 0 ? field | ~((2u << top) - 1) : field;
    EXPECT_EQ(o[11], bfe) << t;
    const std::uint32_t pos = t % 24;
    EXPECT_EQ(o[12], (b & ~(0xffu << pos)) | ((a & 0xffu) << pos)) << t;
    EXPECT_EQ(o[13], static_cast<std::uint32_t>(static_cast<signed char>(a)) + static_cast<std::uint16_t>(b)) << t;
    EXPECT_EQ(o[14], static_cast<std::uint32_t>(sa / ((static_cast<std::int32_t>(b % 1000) - 500) | 1))) << t;
    EXPECT_EQ(o[15], a % (b | 1)) << t;
    EXPECT_EQ(o[16], static_cast<std::uint32_t>(static_cast<std::int64_t>(sa) >> (t % 8))) << t;
    EXPECT_EQ(o[17], static_cast<std::uint32_t>(std::llabs(std::int64_t{sa} - sb)) + 3u) << t;
    EXPECT_EQ(o[18], a * 77u + b) << t;
    EXPECT_EQ(o[19],
              static_cast<std::uint32_t>(static_cast<std::int32_t>(std::nearbyint(static_cast<float>(sa) / 1024.0f))))
        << t;
    EXPECT_EQ(o[20], static_cast<std::uint32_t>(std::floor(static_cast<float>(a >> 8) * 0.75f))) << t;
    EXPECT_EQ(o[21], static_cast<std::uint32_t>(static_cast<std::int32_t>(std::ceil(static_cast<double>(sb) / 3.0))))
        << t;
    EXPECT_EQ(o[22], static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<float>(sa) * 1e-3f))) << t;
    EXPECT_EQ(o[23], 0u) << t;
    EXPECT_EQ(out64[2 * t], std::uint64_t{a} * b + w) << t;
    const auto hi_u = static_cast<std::uint64_t>((u128{w} * 0x9e3779b97f4a7c15ull) >> 64);
    const auto hi_s = static_cast<std::uint64_t>((s128{static_cast<std::int64_t>(w)} * -12345) >> 64);
    EXPECT_EQ(out64[2 * t + 1], hi_u ^ hi_s) << t;
    const auto a16 = static_cast<std::int16_t>(a), b16 = static_cast<std::int16_t>(b);
    EXPECT_EQ(out16[t], static_cast<std::int16_t>(a16 * b16 + (a16 >> 3))) << t;
    const float f = static_cast<float>(sa) / static_cast<float>((b & 0xffff) + 1);
    EXPECT_EQ(outf[t], f) << t;
    EXPECT_EQ(outh[2 * t], half_rn(f)) << t;
    const float rz = half_value(half_rz(f * 0.001f));
    EXPECT_EQ(outh[2 * t + 1], half_rn(rz * 3.0f)) << t;
  }
}

} // namespace
} // namespace bb::ptx

namespace bb::ptx {
namespace {

TEST(PtxOps, ModuleConstDataIsReadable) {
  std::vector<std::int32_t> idx(32);
  for (int t = 0; t < 32; ++t) idx[static_cast<std::size_t>(t)] = t * 5 + 3;
  const kernel_run run("coverage.ptx", "constants", {bytes_of(idx), std::vector<std::uint8_t>(32 * 4, 0xff)},
                       {32, 1, 1});
  const auto out = run.out<float>(1);
  const int table[8] = {3, 1, 4, 1, 5, 9, 2, 6};
  for (std::size_t t = 0; t < 32; ++t) EXPECT_EQ(out[t], static_cast<float>(table[(t * 5 + 3) % 8]) * 2.5f) << t;
}

/// An instruction the interpreter cannot run stops the run only when a thread reaches it: here
/// only threads past 100 take the branch to it.
TEST(PtxOps, UnsupportedInstructionsFailOnlyWhenRun) {
  const std::string ptx = R"(
.version 8.8
.target sm_90
.address_size 64
.visible .entry lazy(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<3>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  setp.gt.u32 %p1, %r1, 100;
  @%p1 bra $L_far;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd2, %rd2, %rd3;
  st.global.u32 [%rd2], %r1;
  ret;
$L_far:
  mul24.lo.s32 %r2, %r1, %r1;
  ret;
}
)";
  const module m = parse(ptx);
  const program p = prepare(m, m.find("lazy"));
  global_memory g;
  g.add(0x1000'0000, std::vector<std::uint8_t>(1024, 0));
  launch l;
  l.block = {64, 1, 1};
  l.params = pack_params(m.find("lazy"), {0x1000'0000});
  const cta_result r = run_cta(p, l, g);
  EXPECT_EQ(r.steps, 64u * 9); // nine instructions a thread
  EXPECT_EQ(test::values_at<std::uint32_t>(g, 0x1000'0000)[63], 63u);
  l.block = {128, 1, 1};
  try {
    (void)run_cta(p, l, g);
    FAIL() << "no error";
  } catch (const ptx_error& e) {
    EXPECT_EQ(e.ptx_line(), 20);
    EXPECT_NE(std::string(e.what()).find("PTX line 20: unsupported instruction 'mul24.lo.s32'"), std::string::npos)
        << e.what();
  }
}

} // namespace
} // namespace bb::ptx

namespace bb::ptx {
namespace {

TEST(PtxOps, TwoFloatsPackIntoF16x2) {
  std::vector<float> in(64);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = (static_cast<float>(i) - 20.3f) * 0.37f;
  in[5] = 70000.0f; // past the largest half: infinity
  const kernel_run run("coverage.ptx", "halves", {bytes_of(in), std::vector<std::uint8_t>(32 * 4, 0xff)}, {32, 1, 1});
  const auto out = run.out<std::uint32_t>(1);
  for (std::size_t t = 0; t < 32; ++t)
    EXPECT_EQ(out[t], std::uint32_t{half_rn(in[2 * t + 1])} << 16 | half_rn(in[2 * t])) << t;
  EXPECT_EQ(out[2] >> 16, 0x7c00u);
}

} // namespace
} // namespace bb::ptx

namespace bb::ptx {
namespace {

TEST(PtxOps, LocalArraysAreEachThreadsOwn) {
  std::vector<std::int32_t> in(64 * 16);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::int32_t>((i * 7919) % 1000);
  const kernel_run run("coverage.ptx", "local_array", {bytes_of(in), std::vector<std::uint8_t>(64 * 4, 0xff)},
                       {64, 1, 1});
  const auto out = run.out<std::int32_t>(1);
  for (std::size_t t = 0; t < 64; ++t) {
    auto a = [&](std::size_t i) { return in[t * 16 + i] * static_cast<std::int32_t>(i + 1); };
    EXPECT_EQ(out[t], a(static_cast<std::size_t>(in[t * 16] & 15)) + a((t * 3) & 15)) << t;
  }
  EXPECT_TRUE(run.result.events.empty()); // local accesses are no shared-memory requests
}

} // namespace
} // namespace bb::ptx
