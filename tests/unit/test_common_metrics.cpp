#include <algorithm>

#include <gtest/gtest.h>

#include "runner/common/metrics.hpp"

namespace m = bb::metrics;

TEST(common_metrics, the_default_set_stays_the_seven_counters_and_access_kinds_adds_every_kind) {
  const auto* s = m::find_set("bank_conflicts");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->metrics.size(), 7u);
  // The default never pays for the SASS per-instruction counters (docs/bank-model.md).
  EXPECT_EQ(std::count(s->metrics.begin(), s->metrics.end(), std::string(m::k_ldsm_wavefronts)), 0);
  const auto* rich = m::find_set("access_kinds");
  ASSERT_NE(rich, nullptr);
  EXPECT_EQ(rich->metrics.size(), 25u);
  EXPECT_TRUE(m::is_chip_optional(m::k_gmma_requests));
  EXPECT_FALSE(m::is_chip_optional(m::k_ldsm_requests));
  EXPECT_EQ(m::find_set("bank_conflict"), nullptr);
}

TEST(common_metrics, ideal_wavefronts_follow_the_access_width) {
  EXPECT_EQ(m::ideal_wavefronts_per_request(1), 1.0);
  EXPECT_EQ(m::ideal_wavefronts_per_request(4), 1.0);
  EXPECT_EQ(m::ideal_wavefronts_per_request(8), 2.0);
  EXPECT_EQ(m::ideal_wavefronts_per_request(16), 4.0);
}

TEST(common_metrics, derive_per_request_and_excess) {
  // A naive 1024^2 transpose as measured on an H200.
  const std::map<std::string, double> raw = {{m::k_ld_requests, 32768},    {m::k_ld_wavefronts, 1050568},
                                             {m::k_ld_conflicts, 1017800}, {m::k_st_requests, 32768},
                                             {m::k_st_wavefronts, 32768},  {m::k_st_conflicts, 0},
                                             {m::k_gpu_time, 9120}};
  const auto d = m::derive(raw, 4);
  EXPECT_DOUBLE_EQ(d.at("load_wavefronts_per_request"), 1050568.0 / 32768);
  EXPECT_DOUBLE_EQ(d.at("load_conflicts_per_request"), 1017800.0 / 32768);
  EXPECT_DOUBLE_EQ(d.at("load_excess_wavefronts"), 1050568.0 - 32768);
  EXPECT_DOUBLE_EQ(d.at("store_excess_wavefronts"), 0.0);
  EXPECT_DOUBLE_EQ(d.at("store_wavefronts_per_request"), 1.0);
  EXPECT_DOUBLE_EQ(d.at("profiled_time_ns"), 9120.0);
  // 16-byte accesses need 4 wavefronts per request before any conflict (128 bytes each).
  const auto wide = m::derive({{m::k_ld_requests, 10}, {m::k_ld_wavefronts, 40}}, 16);
  EXPECT_DOUBLE_EQ(wide.at("load_excess_wavefronts"), 0.0);
}

TEST(common_metrics, derive_leaves_out_what_cannot_be_computed) {
  const auto d = m::derive({{m::k_ld_requests, 0}, {m::k_ld_wavefronts, 0}}, 4);
  EXPECT_EQ(d.count("load_wavefronts_per_request"), 0u);
  EXPECT_EQ(d.count("store_requests"), 0u);
  EXPECT_EQ(d.at("load_requests"), 0.0);
  for (const auto& x : m::derived_metrics()) EXPECT_TRUE(m::is_derived(x.name)) << x.name;
  EXPECT_FALSE(m::is_derived(m::k_ld_requests));
}

TEST(common_metrics, an_ldmatrix_only_kernel_gets_a_full_row) {
  // Measured on an H100: ldmatrix.x4 over 128-byte rows, 65,536 LDSM and no LDS (issue 22).
  const std::map<std::string, double> raw = {{m::k_ld_requests, 0},           {m::k_ld_wavefronts, 2097152},
                                             {m::k_ld_conflicts, 1835008},    {m::k_ldsm_requests, 65536},
                                             {m::k_ldsm_wavefronts, 2097152}, {m::k_ldsm_conflicts, 1835008},
                                             {m::k_st_requests, 0},           {m::k_st_wavefronts, 0},
                                             {m::k_st_conflicts, 0}};
  const auto d = m::derive(raw, 16); // x4: 16 bytes per lane, 4 wavefronts ideal
  EXPECT_DOUBLE_EQ(d.at("load_requests"), 65536.0);
  EXPECT_DOUBLE_EQ(d.at("load_wavefronts_per_request"), 32.0);
  EXPECT_DOUBLE_EQ(d.at("ldsm_requests"), 65536.0);
  EXPECT_DOUBLE_EQ(d.at("ldsm_wavefronts_per_request"), 32.0);
  EXPECT_DOUBLE_EQ(d.at("ldsm_ideal_per_request"), 4.0);
  EXPECT_DOUBLE_EQ(d.at("ldsm_excess_wavefronts_per_request"), 28.0);
  EXPECT_DOUBLE_EQ(d.at("ldsm_conflicts_per_request"), 28.0);
  EXPECT_DOUBLE_EQ(d.at("lds_requests"), 0.0);
  EXPECT_DOUBLE_EQ(d.at("lds_wavefronts"), 0.0);
  EXPECT_EQ(d.count("lds_wavefronts_per_request"), 0u); // no LDS request: no ratio
  EXPECT_EQ(d.count("stsm_requests"), 0u);              // not measured: absent, not 0
  EXPECT_EQ(d.count("sts_requests"), 0u);
}

TEST(common_metrics, mixing_lds_and_ldsm_does_not_inflate_loads) {
  // 1000 conflict-free LDS (1 wavefront each) and 1000 conflict-free LDSM.x4 (4 each).
  const std::map<std::string, double> raw = {{m::k_ld_requests, 1000},     {m::k_ld_wavefronts, 5000},
                                             {m::k_ld_conflicts, 10},      {m::k_ldsm_requests, 1000},
                                             {m::k_ldsm_wavefronts, 4000}, {m::k_ldsm_conflicts, 0}};
  const auto d = m::derive(raw, 4);
  EXPECT_DOUBLE_EQ(d.at("load_wavefronts_per_request"), 2.5); // 5.0 before LDSM was counted
  EXPECT_DOUBLE_EQ(d.at("lds_wavefronts_per_request"), 1.0);
  EXPECT_DOUBLE_EQ(d.at("lds_conflicts_per_request"), 0.01);
  EXPECT_DOUBLE_EQ(d.at("ldsm_wavefronts_per_request"), 4.0);
}

TEST(common_metrics, shared_atomics_tma_and_arbitration) {
  // The one-bank histogram measured on an H100: 524,288 ATOMS, 16,254,174 conflicts.
  const auto d = m::derive({{m::k_atom_requests, 524288},
                            {m::k_atom_wavefronts, 524288 + 16254174.0},
                            {m::k_atom_conflicts, 16254174},
                            {m::k_tma_ld_requests, 8},
                            {m::k_arbitration_conflicts, 3}},
                           4);
  EXPECT_NEAR(d.at("atom_conflicts_per_request"), 31.0, 0.01);
  EXPECT_NEAR(d.at("atom_wavefronts_per_request"), 32.0, 0.01);
  EXPECT_DOUBLE_EQ(d.at("tma_requests"), 8.0);
  EXPECT_DOUBLE_EQ(d.at("arbitration_conflicts"), 3.0);
  EXPECT_EQ(d.count("gmma_requests"), 0u);
  for (const char* n : {"atom_requests", "ldsm_wavefronts_per_request", "gmma_conflicts_per_request", "tma_requests"})
    EXPECT_TRUE(m::is_derived(n)) << n;
}

TEST(metric_list, its_identity_is_its_counters_whatever_the_name) {
  using bb::metrics::metric_list;
  const auto set = metric_list::named(*bb::metrics::find_set("duration"));
  EXPECT_EQ(set.set_name(), "duration");
  const auto listed = metric_list::listed({bb::metrics::k_gpu_time});
  EXPECT_EQ(listed.set_name(), "");
  EXPECT_EQ(set, listed); // one profiler session serves both
  EXPECT_FALSE(set < listed || listed < set);
  const auto defaults = metric_list::default_list();
  EXPECT_EQ(defaults.set_name(), bb::metrics::k_default_set);
  EXPECT_EQ(defaults.names(), bb::metrics::find_set("bank_conflicts")->metrics);
  EXPECT_FALSE(defaults == set);
}
