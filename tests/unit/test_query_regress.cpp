// regress on hand-made sides: the minimum effect, noise, times, architectures and unmatched
// configurations. The values are those real runs read (tests/unit/test_query_regress_fixture.cpp
// judges a database cut from real GPU runs).
#include <gtest/gtest.h>

#include <string>

#include "runner/query/noise.hpp"
#include "runner/query/regress.hpp"

namespace {

using namespace bb::query;
using bb::store::metric_stats;
using bb::store::result_row;

result_row row(const std::string& variant, int n, const std::string& arch, double ld_conflicts, double spread = 0) {
  result_row r;
  r.experiment = "transpose";
  r.variant = "transpose/" + variant;
  r.params_json = "{\"n\":" + std::to_string(n) + "}";
  r.arch = arch;
  r.status = bb::config_status::ok;
  r.metrics["load_conflicts_per_request"] = {ld_conflicts, ld_conflicts * (1 - spread / 2),
                                             ld_conflicts * (1 + spread / 2), 3};
  return r;
}

side of(std::vector<result_row> rows, const std::string& label) {
  side s;
  s.label = label;
  s.description = label;
  s.rows = std::move(rows);
  return s;
}

regress_options conflicts_only() {
  regress_options o;
  o.metrics = {"load_conflicts_per_request"};
  return o;
}

result_row wf_row(const std::string& variant, double wf_per_request, double spread = 0) {
  result_row r = row(variant, 4096, "sm_90", 0);
  r.metrics.clear();
  r.metrics["load_wavefronts_per_request"] = {wf_per_request, wf_per_request * (1 - spread / 2),
                                              wf_per_request * (1 + spread / 2), 1};
  r.metrics["load_requests"] = {131072, 131072, 131072, 1};
  return r;
}

TEST(query_regress, arbitration_noise_on_a_conflict_free_kernel_never_fires) {
  // 0.0076 -> 0.0085 conflicts per request (+12 %), as an H100 read for unchanged code: far below
  // 0.05 per request.
  const auto r = regress(of({row("padded", 4096, "sm_90", 0.0076)}, "A"),
                         of({row("padded", 4096, "sm_90", 0.0085)}, "B"), {}, conflicts_only());
  EXPECT_EQ(r.compared, 1);
  EXPECT_EQ(r.judged, 1);
  EXPECT_TRUE(r.findings.empty());
}

TEST(query_regress, the_larger_of_the_absolute_and_relative_minimum_effect_decides) {
  regress_options o; // defaults: 0.05 per request, 1 %
  // Conflict-free: 1.00 -> 1.04 is under 0.05; 1.00 -> 1.10 (a planted +0.1) is a regression.
  EXPECT_EQ(regress(of({wf_row("padded", 1.0)}, "A"), of({wf_row("padded", 1.04)}, "B"), {}, o).gated(), 0U);
  const auto planted = regress(of({wf_row("padded", 1.0)}, "A"), of({wf_row("padded", 1.1)}, "B"), {}, o);
  ASSERT_EQ(planted.gated(), 1U);
  EXPECT_EQ(planted.findings[0].metric, "load_wavefronts_per_request");
  EXPECT_DOUBLE_EQ(planted.findings[0].allowance, 0.05);
  // 32-way: +3 % (32 -> 32.96) is beyond 1 % of 32 = 0.32; +0.5 % is not.
  EXPECT_EQ(regress(of({wf_row("naive", 32)}, "A"), of({wf_row("naive", 32 * 1.03)}, "B"), {}, o).gated(), 1U);
  EXPECT_EQ(regress(of({wf_row("naive", 32)}, "A"), of({wf_row("naive", 32 * 1.005)}, "B"), {}, o).gated(), 0U);
}

TEST(query_regress, learned_noise_tightens_only_with_enough_repeats_and_never_widens) {
  regress_options o;
  // 32-way: the minimum effect is 1 % of 32 = 0.32. +0.2 (0.6 %) passes without learned noise...
  const auto b = wf_row("naive", 32.0), c = wf_row("naive", 32.2);
  const std::string key = noise_key(b, "load_wavefronts_per_request");
  EXPECT_EQ(regress(of({b}, "A"), of({c}, "B"), {}, o).gated(), 0U);
  // ...and is caught once 3 repeats showed 0.1 % of noise: 4 x 0.032 = 0.128.
  const auto tight = regress(of({b}, "A"), of({c}, "B"), {{key, 0.001}}, o, {{key, 3}});
  ASSERT_EQ(tight.gated(), 1U);
  EXPECT_NEAR(tight.findings[0].allowance, 0.128, 1e-9);
  // The same noise from 2 repeats: not enough to tighten.
  EXPECT_EQ(regress(of({b}, "A"), of({c}, "B"), {{key, 0.001}}, o, {{key, 2}}).gated(), 0U);
  // Never below the absolute part: conflict-free, no noise at all, +0.04 still passes.
  const auto free_b = wf_row("padded", 1.0);
  const std::string free_key = noise_key(free_b, "load_wavefronts_per_request");
  EXPECT_EQ(
      regress(of({free_b}, "A"), of({wf_row("padded", 1.04)}, "B"), {{free_key, 1e-6}}, o, {{free_key, 9}}).gated(),
      0U);
  // Large noise (a run of different code pooled by mistake) never widens past the minimum effect.
  const auto wide = regress(of({free_b}, "A"), of({wf_row("padded", 1.1)}, "B"), {{free_key, 3.0}}, o, {{free_key, 5}});
  ASSERT_EQ(wide.gated(), 1U);
  EXPECT_DOUBLE_EQ(wide.findings[0].allowance, 0.05);
  // Launch spread and a baseline's stored noise do not widen it either.
  side saved = of({wf_row("padded", 1.0, 0.5)}, "baseline main");
  saved.stored_noise = {{free_key, 3.0}};
  EXPECT_EQ(regress(saved, of({wf_row("padded", 1.1)}, "B"), {}, o).gated(), 1U);
}

TEST(query_regress, a_count_is_judged_per_request_of_its_kind) {
  regress_options o;
  o.metrics = {"load_wavefronts"};
  auto b = wf_row("padded", 1.0), c = wf_row("padded", 1.0);
  b.metrics["load_wavefronts"] = {131072, 131072, 131072, 1};
  c.metrics["load_wavefronts"] = {131072 + 0.04 * 131072, 0, 0, 1}; // +0.04 per request: under 0.05
  EXPECT_EQ(regress(of({b}, "A"), of({c}, "B"), {}, o).gated(), 0U);
  c.metrics["load_wavefronts"].mean = 131072 * 1.2;
  EXPECT_EQ(regress(of({b}, "A"), of({c}, "B"), {}, o).gated(), 1U);
}

TEST(query_regress, the_default_metrics_are_every_kinds_wavefronts_per_request_and_requests) {
  auto r = wf_row("padded", 1.0);
  r.metrics["store_wavefronts_per_request"] = {1, 1, 1, 1};
  r.metrics["store_requests"] = {1, 1, 1, 1};
  r.metrics["atom_wavefronts_per_request"] = {1, 1, 1, 1};
  r.metrics["load_conflicts_per_request"] = {0, 0, 0, 1};
  r.metrics["predicted_load_wavefronts_per_request"] = {1, 1, 1, 1};
  EXPECT_EQ(regress_metrics_of({r}),
            (std::vector<std::string>{"load_wavefronts_per_request", "load_requests", "store_wavefronts_per_request",
                                      "store_requests", "atom_wavefronts_per_request"}));
}

TEST(query_regress, conflicts_coming_back_from_zero_regress_and_fewer_improve) {
  const auto r = regress(of({row("swizzled", 4096, "sm_90", 0), row("naive", 1024, "sm_90", 31)}, "A"),
                         of({row("swizzled", 4096, "sm_90", 0.5), row("naive", 1024, "sm_90", 15)}, "B"), {},
                         conflicts_only());
  ASSERT_EQ(r.findings.size(), 2U);
  EXPECT_EQ(r.findings[0].result, outcome::regression);
  EXPECT_FALSE(r.findings[0].change.has_value()); // from 0
  EXPECT_TRUE(r.findings[0].gated);
  EXPECT_EQ(r.findings[1].result, outcome::improvement);
  EXPECT_FALSE(r.findings[1].gated);
  EXPECT_EQ(r.gated(), 1U);
}

TEST(query_regress, other_architectures_are_reported_never_gated) {
  const auto r = regress(of({row("padded", 4096, "sm_90", 0.1177)}, "A"), of({row("padded", 4096, "sm_89", 0.5)}, "B"),
                         {}, conflicts_only());
  EXPECT_EQ(r.compared, 0);
  EXPECT_EQ(r.compared_across, 1);
  ASSERT_EQ(r.findings.size(), 1U);
  EXPECT_TRUE(r.findings[0].cross_arch);
  EXPECT_EQ(r.findings[0].result, outcome::regression);
  EXPECT_FALSE(r.findings[0].gated);
  EXPECT_EQ(r.gated(), 0U);
}

TEST(query_regress, the_same_architecture_is_preferred_when_both_are_there) {
  const auto r = regress(of({row("padded", 4096, "sm_89", 0), row("padded", 4096, "sm_90", 0.1177)}, "A"),
                         of({row("padded", 4096, "sm_90", 0.1177)}, "B"), {}, conflicts_only());
  EXPECT_EQ(r.compared, 1);
  EXPECT_TRUE(r.findings.empty());
  EXPECT_TRUE(r.missing.empty());
}

TEST(query_regress, times_need_significance_and_the_minimum_effect_and_gate_only_when_asked) {
  auto b = row("naive", 8192, "sm_90", 31), c = row("naive", 8192, "sm_90", 31);
  for (double j : {0.996, 1.004, 0.999, 1.002, 0.998, 1.007, 1.0, 0.997, 1.001, 1.003}) {
    b.samples_ns.push_back(485000 * j);
    c.samples_ns.push_back(485000 * 1.5 * j);
  }
  auto o = conflicts_only();
  const auto reported = regress(of({b}, "A"), of({c}, "B"), {}, o);
  ASSERT_EQ(reported.findings.size(), 1U);
  EXPECT_EQ(reported.findings[0].metric, "median_ns");
  EXPECT_EQ(reported.findings[0].result, outcome::regression);
  EXPECT_LT(*reported.findings[0].p, 0.001);
  EXPECT_EQ(reported.gated(), 0U);
  o.gate_time = true;
  EXPECT_EQ(regress(of({b}, "A"), of({c}, "B"), {}, o).gated(), 1U);
  // 3 % slower, however significant, is under the 5 % minimum effect.
  for (auto& s : c.samples_ns) s = s / 1.5 * 1.03;
  EXPECT_TRUE(regress(of({b}, "A"), of({c}, "B"), {}, o).findings.empty());
}

TEST(query_regress, missing_new_and_broken_configurations_are_listed) {
  auto broken = row("padded", 1024, "sm_90", 0.1);
  broken.status = bb::config_status::wrong_result;
  const auto r = regress(of({row("padded", 1024, "sm_90", 0.1), row("padded", 8192, "sm_90", 0.1)}, "A"),
                         of({broken, row("padded", 16384, "sm_90", 0.1)}, "B"), {}, conflicts_only());
  ASSERT_EQ(r.missing.size(), 1U);
  EXPECT_EQ(r.missing[0].params_json, "{\"n\":8192}");
  ASSERT_EQ(r.added.size(), 1U);
  EXPECT_EQ(r.added[0].params_json, "{\"n\":16384}");
  ASSERT_EQ(r.findings.size(), 1U);
  EXPECT_EQ(r.findings[0].metric, "status");
  EXPECT_EQ(r.findings[0].candidate_status, "wrong_result");
  EXPECT_TRUE(r.findings[0].gated);
}

TEST(query_regress, parameters_match_whatever_their_key_order) {
  auto b = row("padded", 4096, "sm_90", 0.1), c = row("padded", 4096, "sm_90", 0.1);
  b.params_json = R"({"tile": 32, "n": 4096})";
  c.params_json = R"({"n":4096,"tile":32})";
  EXPECT_EQ(regress(of({b}, "A"), of({c}, "B"), {}, conflicts_only()).compared, 1);
}

TEST(query_regress, requests_changing_is_reported_not_judged) {
  auto b = row("padded", 4096, "sm_90", 0.1), c = b;
  b.metrics["load_requests"] = {524288, 524288, 524288, 3};
  c.metrics["load_requests"] = {1048576, 1048576, 1048576, 3};
  regress_options o;
  o.metrics = {"load_requests"};
  const auto r = regress(of({b}, "A"), of({c}, "B"), {}, o);
  ASSERT_EQ(r.findings.size(), 1U);
  EXPECT_EQ(r.findings[0].result, outcome::changed);
  EXPECT_EQ(r.gated(), 0U);
}

} // namespace
