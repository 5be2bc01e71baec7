// The transpose variants' access plans, read through the registry as bankbench reads them: built
// from the kernels' own Layout::offset, they predict naive 32 wavefronts per load, the others 1.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "runner/common/metrics.hpp"
#include "runner/model/evaluate.hpp"
#include "runner/model/predict.hpp"
#include "runner/registry/registry.hpp"

namespace {

using namespace bb::model;

access_plan plan_of(const char* variant, int n) {
  const auto* v = bb::registry::instance().find_variant("transpose", variant);
  EXPECT_NE(v, nullptr) << variant;
  EXPECT_TRUE(v->plan) << variant << " has no plan";
  return v->plan({{"n", n}});
}

TEST(model_plans, every_transpose_variant_has_one) {
  for (const auto* v : bb::registry::instance().variants("transpose")) EXPECT_TRUE(v->plan) << v->id();
}

TEST(model_plans, n_1024_full_tiles) {
  const std::uint64_t requests = 1024ull * 1024 / 32; // one per warp, tile row pass and phase
  for (const char* v : {"naive", "padded", "swizzled"}) {
    const auto plan = plan_of(v, 1024);
    EXPECT_EQ(plan.access_bytes, 4) << v;
    EXPECT_EQ(plan.entries.size(), 64u) << v; // 8 warps x 4 passes x (store, load), the same in every tile
    const auto p = predict(plan);
    EXPECT_EQ(p.load.requests, requests) << v;
    EXPECT_EQ(p.store.requests, requests) << v;
    EXPECT_EQ(p.store.wavefronts, requests) << v;
    EXPECT_EQ(p.store.conflicts, 0u) << v;
    const std::uint64_t per_load = std::string(v) == "naive" ? 32 : 1;
    EXPECT_EQ(p.load.wavefronts, requests * per_load) << v;
    EXPECT_EQ(p.load.conflicts, requests * (per_load - 1)) << v;
  }
}

TEST(model_plans, n_100_partial_tiles_leave_lanes_outside_the_matrix_inactive) {
  // 100 = 3 x 32 + 4: tiles hold 32 or 4 valid rows and columns. Requests: one per valid tile
  // row per tile, 100 rows x 4 tiles across = 400. A naive column read costs one wavefront per
  // active lane (all in one bank): 100 x 100 over the whole matrix.
  for (const char* v : {"naive", "padded", "swizzled"}) {
    const auto p = predict(plan_of(v, 100));
    EXPECT_EQ(p.load.requests, 400u) << v;
    EXPECT_EQ(p.store.requests, 400u) << v;
    EXPECT_EQ(p.store.wavefronts, 400u) << v;
    EXPECT_EQ(p.load.wavefronts, std::string(v) == "naive" ? 10000u : 400u) << v;
  }
  // Loads of the last row of tiles: 4 lanes, each a word of one bank. 4 tiles x 32 rows each.
  std::uint64_t four_lane_loads = 0;
  for (const auto& e : plan_of("naive", 100).entries)
    if (e.access.kind == access_kind::load && e.access.active == 0xfu) {
      four_lane_loads += e.count;
      EXPECT_EQ(evaluate(e.access).wavefronts, 4);
    }
  EXPECT_EQ(four_lane_loads, 100u);
}

TEST(model_plans, large_n_needs_no_enumeration) {
  const auto plan = plan_of("naive", 8192);
  EXPECT_EQ(plan.entries.size(), 64u);
  EXPECT_EQ(predict(plan).load.wavefronts, 8192ull * 8192 / 32 * 32);
  EXPECT_EQ(predict(plan_of("padded", 8191)).load.requests, 8191ull * 256); // 256 tiles across
}

TEST(model_plans, refuse_what_the_factory_refuses) {
  EXPECT_THROW(plan_of("padded", 0), bb::unsupported_parameter);
  EXPECT_THROW(plan_of("padded", 46341), bb::unsupported_parameter);
}

TEST(model_plans, carry_the_kernels_tile_layout) {
  const auto padded = plan_of("padded", 64);
  ASSERT_TRUE(padded.tile.has_value());
  EXPECT_EQ(padded.tile->name, "float tile[32][33]");
  EXPECT_EQ(padded.tile->address.at(5 * 32 + 2), (5u * 33 + 2) * 4);
  const auto swizzled = plan_of("swizzled", 64);
  EXPECT_EQ(swizzled.tile->name, "float tile[32][32]");
  EXPECT_EQ(swizzled.tile->address.at(5 * 32 + 2), (5u * 32 + (2 ^ 5)) * 4);
}

TEST(model_plans, predicted_counters_use_the_cupti_names) {
  namespace m = bb::metrics;
  const auto p = predict(plan_of("naive", 1024));
  const auto all = predicted_counters(p, {m::k_ld_requests, m::k_st_requests, m::k_ld_wavefronts, m::k_st_wavefronts,
                                          m::k_ld_conflicts, m::k_st_conflicts, m::k_gpu_time});
  EXPECT_EQ(all.size(), 6u); // time is never predicted
  EXPECT_EQ(all.at(m::k_ld_wavefronts), 1048576.0);
  EXPECT_EQ(all.at(m::k_ld_conflicts), 1015808.0);
  const auto derived = m::derive(all, 4);
  EXPECT_EQ(derived.at("load_wavefronts_per_request"), 32.0);
  EXPECT_EQ(derived.at("load_conflicts_per_request"), 31.0);
  EXPECT_EQ(derived.at("store_wavefronts_per_request"), 1.0);
  EXPECT_EQ(derived.at("load_excess_wavefronts_per_request"), 31.0);
  EXPECT_EQ(predicted_counters(p, {m::k_ld_requests}).size(), 1u);
}

TEST(model_plans, predicted_rows_are_registered_derived_metrics) {
  const auto rows = predicted_metric_rows(predict(plan_of("swizzled", 1024)));
  EXPECT_EQ(rows.size(), 12u); // loads and stores, and the lds and sts kinds: requests and wf/req
  for (const auto& [name, value] : rows) EXPECT_TRUE(bb::metrics::is_derived(name)) << name;
  EXPECT_EQ(rows.at("predicted_lds_wavefronts_per_request"), 1.0);
  EXPECT_EQ(rows.count("predicted_ldsm_requests"), 0u); // the plan has no ldmatrix
  EXPECT_EQ(rows.at("predicted_load_wavefronts_per_request"), 1.0);
  EXPECT_EQ(rows.at("predicted_store_conflicts_per_request"), 0.0);
  EXPECT_EQ(rows.at("predicted_load_requests"), 32768.0);
}

} // namespace
