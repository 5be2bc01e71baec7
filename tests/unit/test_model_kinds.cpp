// The bank model per access kind: ldmatrix/stmatrix (8 row addresses of 16 bytes per matrix),
// shared atomics (one word against distinct words of one bank), TMA swizzle modes and CuTe Swizzle<B,M,S>.
#include <gtest/gtest.h>

#include "runner/model/evaluate.hpp"
#include "runner/model/matrix_access.hpp"
#include "runner/model/predict.hpp"

namespace {

using namespace bb::model;

/// ldmatrix rows: lane l points at row l of a tile whose rows are `pitch` bytes apart, first
/// 16 bytes (matrix l / 8 takes rows 8i..8i+7), each offset passed through `swz`.
template <class Swz> warp_access rows(int matrices, std::uint32_t pitch, Swz swz, access_kind k = access_kind::ldsm) {
  std::array<std::uint32_t, 32> addr{};
  for (std::uint32_t l = 0; l < 32; ++l) addr[l] = swz(l * pitch);
  return matrix_access(addr, matrices, k);
}
auto identity = [](std::uint32_t x) { return x; };

warp_access atomic_at(std::uint32_t (*offset)(int)) {
  warp_access a;
  a.kind = access_kind::atom;
  for (int l = 0; l < 32; ++l) a.address[static_cast<std::size_t>(l)] = offset(l);
  return a;
}

} // namespace

TEST(model_kinds, ldmatrix_over_unpadded_128_byte_rows_is_8_way_per_matrix) {
  EXPECT_EQ(evaluate(rows(4, 128, identity)).wavefronts, 32);
  EXPECT_EQ(evaluate(rows(4, 128, identity)).conflicts, 28);
  EXPECT_EQ(evaluate(rows(2, 128, identity)).wavefronts, 16);
  EXPECT_EQ(evaluate(rows(1, 128, identity)).wavefronts, 8);
  EXPECT_EQ(evaluate(rows(1, 128, identity)).ideal_wavefronts, 1);
}

TEST(model_kinds, ldmatrix_padded_or_swizzled_is_one_wavefront_per_matrix) {
  for (int m : {1, 2, 4}) {
    EXPECT_EQ(evaluate(rows(m, 144, identity)).wavefronts, m) << "pad 16 B, x" << m;
    EXPECT_EQ(evaluate(rows(m, 128, [](std::uint32_t x) { return cute_swizzle(x, 3, 4, 3); })).wavefronts, m)
        << "Swizzle<3,4,3>, x" << m;
    EXPECT_EQ(evaluate(rows(m, 128, identity, access_kind::stsm)).wavefronts, 8 * m) << "stmatrix, x" << m;
  }
  // 64-byte rows: rows start at chunk 0 or 4 of a line, so 8 rows fall in 2 bank groups: 4-way.
  EXPECT_EQ(evaluate(rows(4, 64, identity)).wavefronts, 16);
  // Swizzle<2,4,3> (TMA 64B) over 128-byte rows only spreads 4 chunks: 2-way.
  EXPECT_EQ(evaluate(rows(4, 128, [](std::uint32_t x) { return tma_swizzled(x, tma_swizzle::b64); })).wavefronts, 8);
  EXPECT_EQ(evaluate(rows(4, 128, [](std::uint32_t x) { return tma_swizzled(x, tma_swizzle::b32); })).wavefronts, 16);
}

TEST(model_kinds, tma_swizzle_modes_xor_16_byte_chunks_within_the_span) {
  EXPECT_EQ(tma_swizzled(3 * 128 + 16, tma_swizzle::none), 3u * 128 + 16);
  EXPECT_EQ(tma_swizzled(3 * 128 + 16, tma_swizzle::b128), 3u * 128 + (1 ^ 3) * 16);
  EXPECT_EQ(tma_swizzled(3 * 128 + 16, tma_swizzle::b64), 3u * 128 + (1 ^ 3) * 16); // 2 bits of row
  EXPECT_EQ(tma_swizzled(3 * 128 + 16, tma_swizzle::b32), 3u * 128 + (1 ^ 1) * 16); // 1 bit of row
  EXPECT_EQ(tma_swizzled(7 * 128 + 5, tma_swizzle::b128), 7u * 128 + 7 * 16 + 5);   // bytes within a chunk stay
  EXPECT_EQ(cute_swizzle(1024 + 130, 3, 4, 3), 1024u + 128 + (0 ^ 1) * 16 + 2);     // period 1024 bytes
}

// An H100 read 1.00 atom wavefronts per request for 32 lanes adding to one word (histogram/
// same_address) and 32.0 for 32 lanes on 32 words of one bank (histogram/one_bank).
TEST(model_kinds, atomics_on_one_address_share_a_wavefront_and_distinct_words_of_a_bank_do_not) {
  const auto one_address = atomic_at([](int) { return 0u; });
  EXPECT_EQ(evaluate(one_address).wavefronts, 1);
  EXPECT_EQ(evaluate(atomic_at([](int l) { return static_cast<std::uint32_t>(l % 2) * 128; })).wavefronts, 2);
  EXPECT_EQ(evaluate(atomic_at([](int l) { return static_cast<std::uint32_t>(l) * 128; })).wavefronts, 32);
  EXPECT_EQ(evaluate(atomic_at([](int l) { return static_cast<std::uint32_t>(l) * 132; })).wavefronts, 1);
  EXPECT_EQ(evaluate(atomic_at([](int l) { return static_cast<std::uint32_t>(l) * 4; })).wavefronts, 1);
  // 4 words of 4 banks, 8 lanes each: the words are shared, so 1 (a load's count too).
  EXPECT_EQ(evaluate(atomic_at([](int l) { return static_cast<std::uint32_t>(l % 4) * 4; })).wavefronts, 1);
  // 8 words of one bank, 4 lanes each: 8.
  EXPECT_EQ(evaluate(atomic_at([](int l) { return static_cast<std::uint32_t>(l % 8) * 128; })).wavefronts, 8);
}

TEST(model_kinds, predict_keeps_kinds_apart_and_load_counts_ldsm) {
  access_plan plan;
  plan.add(10, rows(4, 128, identity));
  warp_access lds;
  for (int l = 0; l < 32; ++l) lds.address[static_cast<std::size_t>(l)] = static_cast<std::uint32_t>(l) * 4;
  plan.add(5, lds);
  plan.add(3, atomic_at([](int l) { return static_cast<std::uint32_t>(l) * 128; })); // 32 words of bank 0
  const auto p = predict(plan);
  EXPECT_EQ(p.kinds.at("ldsm").wavefronts, 320u);
  EXPECT_EQ(p.kinds.at("lds").wavefronts, 5u);
  EXPECT_EQ(p.kinds.at("atom").wavefronts, 96u);
  EXPECT_EQ(p.load.requests, 15u);
  EXPECT_EQ(p.load.wavefronts, 325u);
  const auto rows_out = predicted_metric_rows(p);
  EXPECT_DOUBLE_EQ(rows_out.at("predicted_ldsm_wavefronts_per_request"), 32.0);
  EXPECT_DOUBLE_EQ(rows_out.at("predicted_atom_wavefronts_per_request"), 32.0);
  EXPECT_DOUBLE_EQ(rows_out.at("predicted_lds_wavefronts_per_request"), 1.0);
  const auto raw = predicted_counters(p,
                                      {"smsp__sass_inst_executed_op_shared_ld.sum", "smsp__inst_executed_op_ldsm.sum",
                                       "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"});
  EXPECT_DOUBLE_EQ(raw.at("smsp__sass_inst_executed_op_shared_ld.sum"), 5.0); // LDS alone, as the SASS counter
  EXPECT_DOUBLE_EQ(raw.at("smsp__inst_executed_op_ldsm.sum"), 10.0);
  EXPECT_DOUBLE_EQ(raw.at("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"), 325.0); // op_ld holds both
}
