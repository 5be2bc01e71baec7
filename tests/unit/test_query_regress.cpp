// regress on hand-made sides: noise, the floor, times, architectures and unmatched configurations.
#include <gtest/gtest.h>

#include <string>

#include "query/noise.hpp"
#include "query/regress.hpp"

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
  r.status = "ok";
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

TEST(query_regress, a_change_within_the_launch_spread_is_noise) {
  // Baseline launches 0.9 % apart; the candidate is 0.65 % higher: above the floor, below the noise.
  const auto r = regress(of({row("padded", 4096, "sm_90", 0.11773, 0.0089)}, "A"),
                         of({row("padded", 4096, "sm_90", 0.11773 * 1.0065)}, "B"), {}, conflicts_only());
  EXPECT_EQ(r.compared, 1);
  EXPECT_TRUE(r.findings.empty());
  EXPECT_EQ(r.gated(), 0U);
}

TEST(query_regress, without_measured_noise_the_floor_decides) {
  const auto r = regress(of({row("padded", 4096, "sm_90", 0.11773)}, "A"),
                         of({row("padded", 4096, "sm_90", 0.11773 * 1.0065)}, "B"), {}, conflicts_only());
  ASSERT_EQ(r.findings.size(), 1U);
  EXPECT_EQ(r.findings[0].result, outcome::regression);
  EXPECT_DOUBLE_EQ(r.findings[0].allowance, 0.005);
  EXPECT_NEAR(*r.findings[0].change, 0.0065, 1e-12);
  EXPECT_EQ(r.gated(), 1U);
}

TEST(query_regress, noise_learned_from_repeated_runs_widens_the_allowance) {
  const auto b = row("padded", 4096, "sm_90", 0.1), c = row("padded", 4096, "sm_90", 0.102);
  noise_table history = {{noise_key(b, "load_conflicts_per_request"), 0.03}};
  EXPECT_EQ(regress(of({b}, "A"), of({c}, "B"), history, conflicts_only()).gated(), 0U);
  EXPECT_EQ(regress(of({b}, "A"), of({c}, "B"), {}, conflicts_only()).gated(), 1U);
  // A baseline file carries the noise it learned when it was saved.
  side saved = of({b}, "baseline main");
  saved.stored_noise = history;
  EXPECT_EQ(regress(saved, of({c}, "B"), {}, conflicts_only()).gated(), 0U);
}

TEST(query_regress, conflicts_coming_back_from_zero_regress_and_fewer_improve) {
  const auto r =
      regress(of({row("swizzled", 4096, "sm_90", 0), row("naive", 1024, "sm_90", 31)}, "A"),
              of({row("swizzled", 4096, "sm_90", 0.5), row("naive", 1024, "sm_90", 15)}, "B"), {}, conflicts_only());
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
  broken.status = "wrong_result";
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
