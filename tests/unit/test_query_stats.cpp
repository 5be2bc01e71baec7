// Spreads, medians and the Mann-Whitney U test regress uses on timing samples.
#include <gtest/gtest.h>

#include <vector>

#include "runner/query/stats.hpp"

namespace {

using namespace bb::query;

TEST(query_stats, relative_spread_is_range_over_mean) {
  // The padded transpose at n=4096 on an H200: three launches.
  const std::vector<double> conflicts = {61512, 61625, 62061};
  EXPECT_NEAR(relative_spread(conflicts), (62061.0 - 61512) / ((61512.0 + 61625 + 62061) / 3), 1e-12);
  EXPECT_NEAR(relative_spread(conflicts), 0.00889, 1e-5);
  EXPECT_EQ(relative_spread(std::vector<double>{5}), 0);
  EXPECT_EQ(relative_spread(std::vector<double>{0, 0, 0}), 0);
  EXPECT_EQ(relative_spread(0, 0, 0), 0);
}

TEST(query_stats, median_of_odd_and_even_counts) {
  EXPECT_EQ(median({3, 1, 2}), 2);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(median({}), 0);
}

TEST(query_stats, mann_whitney_u_matches_the_normal_approximation) {
  // R: wilcox.test(1:5, 6:10, exact = FALSE, correct = TRUE) gives W = 0, p-value = 0.01219.
  const std::vector<double> a = {1, 2, 3, 4, 5}, b = {6, 7, 8, 9, 10};
  const auto r = mann_whitney_u(a, b);
  EXPECT_EQ(r.u, 0);
  EXPECT_NEAR(r.z, -2.5067, 1e-4);
  EXPECT_NEAR(r.p, 0.01219, 1e-5);
  // The test is symmetric: swapping the samples mirrors U and keeps p.
  const auto swapped = mann_whitney_u(b, a);
  EXPECT_EQ(swapped.u, 25);
  EXPECT_NEAR(swapped.p, r.p, 1e-12);
}

TEST(query_stats, mann_whitney_u_corrects_for_ties) {
  // Ranks with ties averaged; the tie term lowers the variance: W = 2.5, p = 0.1342.
  const std::vector<double> a = {1, 2, 2, 3}, b = {2, 3, 4, 4};
  const auto r = mann_whitney_u(a, b);
  EXPECT_EQ(r.u, 2.5);
  EXPECT_NEAR(r.z, -1.49786, 1e-5);
  EXPECT_NEAR(r.p, 0.13417, 1e-5);
}

TEST(query_stats, mann_whitney_u_of_identical_or_empty_samples_finds_nothing) {
  const std::vector<double> same = {5, 5, 5};
  EXPECT_EQ(mann_whitney_u(same, same).p, 1);
  EXPECT_EQ(mann_whitney_u({}, same).p, 1);
  const std::vector<double> a = {10, 11, 12, 13}, b = {10.5, 11.5, 12.5, 13.5};
  EXPECT_GT(mann_whitney_u(a, b).p, 0.5);
}

} // namespace
