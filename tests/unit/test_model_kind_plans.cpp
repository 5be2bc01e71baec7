// The access plans of the access-kind families (kernels/ldmatrix, stmatrix, histogram, cp_async,
// tma, wgmma), read through the registry, and what the model predicts for them: the numbers the
// experiment files and tests/gpu/test_access_kinds.cpp expect.
#include <gtest/gtest.h>

#include <tuple>

#include <nlohmann/json.hpp>

#include "runner/model/predict.hpp"
#include "runner/registry/registry.hpp"

namespace {

bb::model::prediction predicted(const char* family, const char* variant, const nlohmann::json& params) {
  const auto* v = bb::registry::instance().find_variant(family, variant);
  EXPECT_NE(v, nullptr) << family << "/" << variant;
  return bb::model::predict(v->plan(params));
}

double per_request(const bb::model::prediction& p, const char* kind) {
  const auto& k = p.kinds.at(kind);
  return static_cast<double>(k.wavefronts) / static_cast<double>(k.requests);
}

} // namespace

TEST(model_kind_plans, ldmatrix_and_stmatrix_per_layout_and_width) {
  for (const int m : {1, 2, 4}) {
    const nlohmann::json ld = {{"matrices", m}, {"mode", "trans"}, {"batch", 10}};
    const auto unpadded = predicted("ldmatrix", "unpadded", ld);
    EXPECT_EQ(unpadded.kinds.at("ldsm").requests, 10u * 32 / m); // 32/N instructions per tile
    EXPECT_EQ(per_request(unpadded, "ldsm"), 8.0 * m);
    EXPECT_EQ(per_request(predicted("ldmatrix", "padded", ld), "ldsm"), 1.0 * m);
    EXPECT_EQ(per_request(predicted("ldmatrix", "swizzled", ld), "ldsm"), 1.0 * m);
    EXPECT_EQ(per_request(unpadded, "sts"), 1.0 * m); // the fill: 4N bytes per lane, ideal
    const nlohmann::json st = {{"matrices", m}, {"batch", 10}};
    EXPECT_EQ(per_request(predicted("stmatrix", "unpadded", st), "stsm"), 8.0 * m);
    EXPECT_EQ(per_request(predicted("stmatrix", "swizzled", st), "stsm"), 1.0 * m);
    EXPECT_EQ(predicted("stmatrix", "padded", st).store.requests, 10u * 32 / m); // store = STS + STSM, no STS here
  }
}

TEST(model_kind_plans, histogram_atomics_including_a_partial_block) {
  const nlohmann::json big = {{"n", 1 << 22}, {"items", 16}};
  const auto one_bank = predicted("histogram", "one_bank", big);
  EXPECT_EQ(one_bank.kinds.at("atom").requests, (1u << 22) / 32);
  EXPECT_EQ(per_request(one_bank, "atom"), 32.0);
  EXPECT_EQ(per_request(predicted("histogram", "padded", big), "atom"), 1.0);
  EXPECT_EQ(per_request(predicted("histogram", "per_warp", big), "atom"), 1.0);
  EXPECT_EQ(per_request(predicted("histogram", "same_address", big), "atom"), 1.0);
  // n = 1000 in one block of 4096: 31 full warps and one of 8 lanes.
  const auto partial = predicted("histogram", "padded", {{"n", 1000}, {"items", 16}});
  EXPECT_EQ(partial.kinds.at("atom").requests, 32u);
  EXPECT_EQ(partial.kinds.at("lds").requests, 1u); // warp 0's read-back
}

TEST(model_kind_plans, cp_async_and_tma_read_backs) {
  const nlohmann::json cp = {{"cache", "ca"}, {"batch", 10}};
  EXPECT_EQ(per_request(predicted("cp_async", "columns", cp), "ldgsts"), 32.0);
  EXPECT_EQ(per_request(predicted("cp_async", "rows", cp), "ldgsts"), 4.0);
  // Conflict-free destinations, but 32 source lines per instruction: 32 (an H100 read 32.00).
  EXPECT_EQ(per_request(predicted("cp_async", "columns_swizzled", cp), "ldgsts"), 32.0);
  EXPECT_EQ(per_request(predicted("cp_async", "columns_padded", cp), "ldgsts"), 32.0);
  // 4 source lines, 8-way destinations: the destinations' 32.
  EXPECT_EQ(per_request(predicted("cp_async", "scatter", cp), "ldgsts"), 32.0);
  EXPECT_EQ(per_request(predicted("cp_async", "scatter", cp), "lds"), 32.0); // its read-back too
  EXPECT_EQ(predicted("cp_async", "columns_padded", cp).kinds.at("ldgsts").requests, 80u);
  // Conflicts as the counter shows them: the excess under .ca (28 per request), none under .cg at
  // the same wavefronts (H100, H200).
  const nlohmann::json cg = {{"cache", "cg"}, {"batch", 10}};
  for (const char* v : {"columns", "columns_padded", "columns_swizzled", "scatter"}) {
    const auto ca_kind = predicted("cp_async", v, cp).kinds.at("ldgsts");
    const auto cg_kind = predicted("cp_async", v, cg).kinds.at("ldgsts");
    EXPECT_EQ(ca_kind.conflicts, 28u * ca_kind.requests) << v;
    EXPECT_EQ(cg_kind.conflicts, 0u) << v;
    EXPECT_EQ(cg_kind.wavefronts, ca_kind.wavefronts) << v;
  }
  for (const auto& [rows, none] : {std::pair{32, 8.0}, std::pair{64, 16.0}, std::pair{128, 32.0}})
    EXPECT_EQ(per_request(predicted("tma", "none", {{"row_bytes", rows}, {"batch", 4}}), "lds"), none) << rows;
  EXPECT_EQ(per_request(predicted("tma", "sw32", {{"row_bytes", 32}, {"batch", 4}}), "lds"), 4.0);
  EXPECT_EQ(per_request(predicted("tma", "sw64", {{"row_bytes", 64}, {"batch", 4}}), "lds"), 4.0);
  EXPECT_EQ(per_request(predicted("tma", "sw128", {{"row_bytes", 128}, {"batch", 4}}), "lds"), 4.0);
  EXPECT_THROW(predicted("tma", "sw32", {{"row_bytes", 64}, {"batch", 4}}), bb::unsupported_parameter);
  // A swizzled box row narrower than the span faulted on an H200: refused too; 0 takes the span.
  EXPECT_THROW(predicted("tma", "sw128", {{"row_bytes", 64}, {"batch", 4}}), bb::unsupported_parameter);
  EXPECT_EQ(predicted("tma", "sw64", {{"row_bytes", 0}, {"batch", 4}}).kinds.at("lds").requests, 4u * 4);
}

// wgmma: per instruction 32 core matrices (A's and B's 64 x 16 slices), each in 8 distinct 16-byte
// bank groups in all four canonical layouts, counted as 4 GMMA requests (one per warp, as an H100
// counted them) of 8 wavefronts and no conflict; K / 16 instructions per tile; the copy's 16-byte
// stores at the ideal 4.
TEST(model_kind_plans, wgmma_operand_reads_in_every_canonical_layout) {
  for (const auto& [variant, steps, span] :
       {std::tuple{"none", 1, 32}, std::tuple{"sw32", 1, 32}, std::tuple{"sw64", 2, 64}, std::tuple{"sw128", 4, 128}}) {
    SCOPED_TRACE(variant);
    const auto p = predicted("wgmma", variant, {{"batch", 10}});
    const auto& gmma = p.kinds.at("gmma");
    EXPECT_EQ(gmma.requests, 4u * 10u * static_cast<unsigned>(steps));
    EXPECT_EQ(gmma.wavefronts, 8u * gmma.requests);
    EXPECT_EQ(gmma.ideal_wavefronts, gmma.wavefronts);
    EXPECT_EQ(gmma.conflicts, 0u);
    EXPECT_EQ(p.load.requests, 0u); // GMMA is neither side
    const auto& sts = p.kinds.at("sts");
    EXPECT_EQ(sts.requests, 10u * 2 * 64 * static_cast<unsigned>(span) / 16 / 32); // A and B, 16 bytes per lane
    EXPECT_EQ(per_request(p, "sts"), 4.0);
    const auto rows = bb::model::predicted_metric_rows(p);
    EXPECT_EQ(rows.at("predicted_gmma_requests"), 40.0 * steps);
    EXPECT_EQ(rows.at("predicted_gmma_wavefronts_per_request"), 8.0);
  }
  EXPECT_THROW(predicted("wgmma", "sw128", {{"batch", 0}}), bb::unsupported_parameter);
}
