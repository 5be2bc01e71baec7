#include <gtest/gtest.h>

#include "common/metrics.hpp"

namespace m = bb::metrics;

TEST(common_metrics, bank_conflicts_set_has_the_seven_metrics) {
  const auto* s = m::find_set("bank_conflicts");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->metrics.size(), 7u);
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
  const std::map<std::string, double> raw = {
      {m::k_ld_requests, 32768},   {m::k_ld_wavefronts, 1050568}, {m::k_ld_conflicts, 1017800},
      {m::k_st_requests, 32768},   {m::k_st_wavefronts, 32768},   {m::k_st_conflicts, 0},
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
