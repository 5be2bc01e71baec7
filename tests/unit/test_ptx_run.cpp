#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <tuple>

#include "runner/ptx/run.hpp"
#include "runner/ptx/trace.hpp"
#include "tests/unit/ptx_test_util.hpp"

namespace bb::ptx {
namespace {

constexpr std::uint64_t k_in = 0x1000'0000, k_out = 0x2000'0000;
constexpr int k_n = 1024;
constexpr std::uint32_t k_poison = 0xffffffffu;

/// One CTA (bx, by) of a 1024 x 1024 transpose with 32 x 8 threads: `in` holds i at element i,
/// `out` is poisoned.
struct transpose_run {
  module m;
  global_memory global;
  cta_result result;
  std::vector<warp_request> requests;

  transpose_run(const char* name, std::uint32_t bx, std::uint32_t by, std::string ptx = "") {
    m = parse(ptx.empty() ? test::read_fixture("transpose.ptx") : ptx);
    std::vector<std::uint8_t> in(std::size_t{k_n} * k_n * 4), out(in.size(), 0xff);
    for (std::uint32_t i = 0; i < k_n * k_n; ++i) {
      const auto v = static_cast<float>(i);
      std::memcpy(in.data() + 4 * std::size_t{i}, &v, 4);
    }
    global.add(k_in, std::move(in));
    global.add(k_out, std::move(out));
    const entry& e = m.find(name);
    launch l;
    l.grid = {k_n / 32, k_n / 32, 1};
    l.block = {32, 8, 1};
    l.cta = {bx, by, 0};
    l.params = pack_params(e, {k_in, k_out, k_n});
    result = run_cta(m, e, l, global);
    requests = warp_requests(result.events);
  }

  float at(std::uint64_t base, std::size_t i) const {
    float v = 0;
    std::memcpy(&v, global.buffer(base).data() + 4 * i, 4);
    return v;
  }
  std::uint32_t bits(std::uint64_t base, std::size_t i) const {
    std::uint32_t v = 0;
    std::memcpy(&v, global.buffer(base).data() + 4 * i, 4);
    return v;
  }
};

/// wavefronts of every request of one kind
std::vector<int> wavefronts(const std::vector<warp_request>& requests, model::access_kind kind) {
  std::vector<int> out;
  for (const warp_request& r : requests)
    if (r.access.kind == kind) {
      EXPECT_EQ(r.access.active, 0xffffffffu);
      out.push_back(model::evaluate(r.access).wavefronts);
    }
  return out;
}

TEST(PtxRun, NaiveTransposeColumnReadsAre32Way) {
  const transpose_run run(test::k_naive, 3, 5);
  EXPECT_EQ(run.result.shared_bytes, 4096u);
  EXPECT_EQ(run.result.events.size(), 2u * 32 * 32); // each of 1024 elements stored once, loaded once
  const auto loads = wavefronts(run.requests, model::access_kind::load);
  const auto stores = wavefronts(run.requests, model::access_kind::store);
  EXPECT_EQ(loads, std::vector<int>(32, 32)); // 8 warps x 4 iterations, each a column of the tile
  EXPECT_EQ(stores, std::vector<int>(32, 1));
}

TEST(PtxRun, PaddedTransposeHasNoConflicts) {
  const transpose_run run(test::k_padded, 3, 5);
  EXPECT_EQ(run.result.shared_bytes, 4224u);
  EXPECT_EQ(wavefronts(run.requests, model::access_kind::load), std::vector<int>(32, 1));
  EXPECT_EQ(wavefronts(run.requests, model::access_kind::store), std::vector<int>(32, 1));
}

TEST(PtxRun, OutputHoldsTheTransposedTile) {
  for (const char* name : {test::k_naive, test::k_padded}) {
    const transpose_run run(name, 3, 5);
    int written = 0;
    for (std::size_t i = 0; i < std::size_t{k_n} * k_n; ++i) written += run.bits(k_out, i) != k_poison ? 1 : 0;
    EXPECT_EQ(written, 32 * 32) << name; // this CTA's tile and nothing else
    for (std::size_t r = 0; r < 32; ++r)
      for (std::size_t c = 0; c < 32; ++c) {
        // out[(bx*32 + r) * n + by*32 + c] = in[(by*32 + c) * n + bx*32 + r]
        const std::size_t o = (3 * 32 + r) * k_n + 5 * 32 + c, i = (5 * 32 + c) * k_n + 3 * 32 + r;
        ASSERT_EQ(run.at(k_out, o), run.at(k_in, i)) << name << " r " << r << " c " << c;
      }
  }
}

TEST(PtxRun, CostsPerInstructionAndSourceLine) {
  const transpose_run run(test::k_naive, 0, 0);
  const trace_costs c = cost(run.m.find(test::k_naive), run.requests);
  ASSERT_EQ(c.per_instruction.size(), 8u); // 4 unrolled stores, 4 unrolled loads
  for (const cost_sum& s : c.per_instruction) {
    EXPECT_EQ(s.requests, 8u) << "PTX line " << s.ptx_line;
    EXPECT_EQ(s.wavefronts, s.kind == model::access_kind::load ? 8u * 32 : 8u);
  }
  ASSERT_EQ(c.per_line.size(), 2u);
  EXPECT_EQ(c.per_line[0].line, 30);
  EXPECT_EQ(c.per_line[0].kind, model::access_kind::store);
  EXPECT_EQ(c.per_line[0].requests, 32u);
  EXPECT_EQ(c.per_line[0].excess(), 0u);
  EXPECT_EQ(c.per_line[1].line, 38);
  EXPECT_EQ(c.per_line[1].requests, 32u);
  EXPECT_EQ(c.per_line[1].wavefronts, 32u * 32);
  EXPECT_EQ(c.per_line[1].ideal_wavefronts, 32u);
  EXPECT_EQ(c.per_line[1].excess(), 32u * 31);
}

TEST(PtxRun, UnknownOpcodeNamesItsLines) {
  std::string ptx = test::read_fixture("transpose.ptx");
  const std::size_t at = ptx.find("shl.b32"); // PTX line 39, after ".loc 1 25 3"
  ASSERT_NE(at, std::string::npos);
  ptx.replace(at, 7, "shlx.b32");
  try {
    const transpose_run run(test::k_naive, 0, 0, ptx);
    FAIL() << "no error";
  } catch (const ptx_error& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.ptx_line(), 39);
    EXPECT_NE(what.find("unsupported instruction 'shlx.b32'"), std::string::npos) << what;
    EXPECT_NE(what.find("PTX line 39"), std::string::npos) << what;
    EXPECT_NE(what.find("transpose.cu:25"), std::string::npos) << what;
  }
}

TEST(PtxRun, StepBudgetAndUnregisteredMemoryStopTheRun) {
  const module m = parse(test::read_fixture("transpose.ptx"));
  const entry& e = m.find(test::k_naive);
  launch l;
  l.grid = {32, 32, 1};
  l.block = {32, 8, 1};
  l.params = pack_params(e, {k_in, k_out, k_n});
  global_memory none;
  try {
    (void)run_cta(m, e, l, none);
    FAIL() << "no error";
  } catch (const ptx_error& err) {
    EXPECT_NE(std::string(err.what()).find("global address 0x10000000 (4 B) is in no buffer"), std::string::npos)
        << err.what();
  }
  global_memory g;
  g.add(k_in, std::vector<std::uint8_t>(std::size_t{k_n} * k_n * 4));
  g.add(k_out, std::vector<std::uint8_t>(std::size_t{k_n} * k_n * 4));
  l.step_budget = 100;
  try {
    (void)run_cta(m, e, l, g);
    FAIL() << "no error";
  } catch (const ptx_error& err) {
    EXPECT_NE(std::string(err.what()).find("step budget of 100"), std::string::npos) << err.what();
  }
}

// The buffer of the last access is remembered; a copy or a move must find its own buffers, and a
// write marks exactly its bytes however it sits over the mask's 64-byte words.
TEST(PtxRun, GlobalMemoryFindsItsBuffersAndMarksTheBytesWritten) {
  global_memory g;
  g.add(0x1000, std::vector<std::uint8_t>(200, 7));
  g.add(0x2000, std::vector<std::uint8_t>(100, 9));
  ASSERT_NE(g.find(0x1000 + 190, 10), nullptr);
  EXPECT_EQ(g.find(0x1000 + 191, 10), nullptr); // one byte past the end
  EXPECT_EQ(g.find(0x1000 + 200, 1), nullptr);
  EXPECT_EQ(*g.find(0x2000 + 99, 1), 9);
  EXPECT_EQ(g.find(0x0fff, 1), nullptr);
  EXPECT_EQ(*g.find(0x1000, 1), 7);

  std::uint8_t* at = g.find_for_write(0x1000 + 60, 72); // bytes 60 .. 131: three words of the mask
  ASSERT_NE(at, nullptr);
  *at = 1;
  const auto& mask = g.written(0x1000);
  std::size_t marked = 0;
  for (std::size_t i = 0; i < 200; ++i) {
    EXPECT_EQ(written_at(mask, i), i >= 60 && i < 132) << i;
    marked += written_at(mask, i) ? 1 : 0;
  }
  EXPECT_EQ(marked, 72u);
  EXPECT_TRUE(g.written(0x2000).empty());

  global_memory copy = g;
  *copy.find_for_write(0x1000, 1) = 5; // the copy's own bytes, not g's
  EXPECT_EQ(g.buffer(0x1000)[0], 7);
  EXPECT_EQ(copy.buffer(0x1000)[0], 5);
  global_memory moved = std::move(copy);
  EXPECT_EQ(*moved.find(0x1000, 1), 5);
  auto [bytes, written] = moved.release(0x1000);
  EXPECT_EQ(bytes.size(), 200u);
  EXPECT_EQ(moved.find(0x1000, 1), nullptr); // released: empty
  EXPECT_EQ(*moved.find(0x2000, 1), 9);
}

// The module's extern shared array, declared between the entry's declaration and its definition,
// is the dynamic shared memory: lane l reads word 2l mod 64, two lanes per bank (2-way).
TEST(PtxRun, TheModulesExternSharedArrayAfterADeclaredEntry) {
  const module m = parse(test::read_fixture("forward_declared.ptx"));
  const entry& e = m.find("_Z16forward_declaredPKfPf");
  global_memory global;
  std::vector<std::uint8_t> in(64 * 4), out(64 * 4, 0xff);
  for (std::uint32_t i = 0; i < 64; ++i) {
    const auto v = static_cast<float>(i);
    std::memcpy(in.data() + 4 * i, &v, 4);
  }
  global.add(k_in, std::move(in));
  global.add(k_out, std::move(out));
  launch l;
  l.block = {64, 1, 1};
  l.dynamic_shared_bytes = 64 * 4;
  l.params = pack_params(e, {k_in, k_out});
  const cta_result r = run_cta(m, e, l, global);
  EXPECT_EQ(r.shared_bytes, 256u);
  for (std::uint32_t t = 0; t < 64; ++t) {
    float v = 0;
    std::memcpy(&v, global.buffer(k_out).data() + 4 * t, 4);
    EXPECT_EQ(v, static_cast<float>(t * 2 % 64)) << t;
  }
  const auto requests = warp_requests(r.events);
  EXPECT_EQ(wavefronts(requests, model::access_kind::store), std::vector<int>(2, 1));
  EXPECT_EQ(wavefronts(requests, model::access_kind::load), std::vector<int>(2, 2));
}

} // namespace
} // namespace bb::ptx

namespace bb::ptx {
namespace {

// warp_requests groups by (warp, instruction, execution) whatever order the events come in: lanes
// in turn (the interpreter's order), a warp coming back after others, and lanes out of order.
TEST(PtxRun, WarpRequestsGroupEventsInAnyOrder) {
  std::vector<shared_event> in_turn, shuffled;
  for (std::uint32_t pass = 0; pass < 2; ++pass)
    for (std::uint32_t warp = 0; warp < 3; ++warp)
      for (std::uint32_t lane = 0; lane < 32; ++lane)
        for (std::uint32_t execution = 0; execution < 4; ++execution) {
          shared_event e;
          e.warp = warp;
          e.lane = lane;
          e.instruction = 10 * pass + (execution % 2);
          e.execution = execution;
          e.address = 4 * ((lane * (execution + 1) + warp) % 64);
          in_turn.push_back(e);
        }
  shuffled = in_turn;
  std::mt19937 random(7);
  std::shuffle(shuffled.begin(), shuffled.end(), random);
  const auto a = warp_requests(in_turn), b = warp_requests(shuffled);
  ASSERT_EQ(a.size(), 2u * 3u * 4u);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].warp, b[i].warp);
    EXPECT_EQ(a[i].instruction, b[i].instruction);
    EXPECT_EQ(a[i].execution, b[i].execution);
    EXPECT_TRUE(a[i].access == b[i].access) << i;
    EXPECT_EQ(a[i].access.active, 0xffffffffu);
    if (i > 0) { // in (warp, instruction, execution) order
      EXPECT_LT(std::tie(a[i - 1].warp, a[i - 1].instruction, a[i - 1].execution),
                std::tie(a[i].warp, a[i].instruction, a[i].execution));
    }
  }
  EXPECT_EQ(a[1].access.address[5], 4u * ((5u * 3u + 0u) % 64u)); // warp 0, instruction 0, execution 2
}

} // namespace
} // namespace bb::ptx
