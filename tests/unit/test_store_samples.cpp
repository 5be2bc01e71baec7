// Timing summaries and timestamps.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>

#include "runner/store/samples.hpp"

namespace {

using bb::store::summarize_samples;

TEST(store_samples, odd_count_takes_the_middle_sample) {
  const auto t = summarize_samples({5, 1, 3});
  EXPECT_EQ(t.samples_ns, (std::vector<double>{5, 1, 3})); // as measured, not sorted
  EXPECT_DOUBLE_EQ(t.median_ns, 3);
  EXPECT_DOUBLE_EQ(t.min_ns, 1);
  EXPECT_DOUBLE_EQ(t.max_ns, 5);
  EXPECT_DOUBLE_EQ(t.mean_ns, 3);
  EXPECT_DOUBLE_EQ(t.stddev_ns, 2); // sqrt((4 + 0 + 4) / 2)
  EXPECT_DOUBLE_EQ(t.spread, 4.0 / 3.0);
}

TEST(store_samples, even_count_takes_the_mean_of_the_middle_two) {
  const auto t = summarize_samples({4, 1, 3, 2});
  EXPECT_DOUBLE_EQ(t.median_ns, 2.5);
  EXPECT_DOUBLE_EQ(t.min_ns, 1);
  EXPECT_DOUBLE_EQ(t.max_ns, 4);
  EXPECT_DOUBLE_EQ(t.mean_ns, 2.5);
  EXPECT_DOUBLE_EQ(t.stddev_ns, std::sqrt(5.0 / 3.0)); // (2.25 + 0.25 + 0.25 + 2.25) / 3
  EXPECT_DOUBLE_EQ(t.spread, 3.0 / 2.5);
}

TEST(store_samples, one_sample_and_none) {
  const auto one = summarize_samples({7});
  EXPECT_DOUBLE_EQ(one.median_ns, 7);
  EXPECT_DOUBLE_EQ(one.stddev_ns, 0);
  EXPECT_DOUBLE_EQ(one.spread, 0);
  const auto none = summarize_samples({});
  EXPECT_TRUE(none.samples_ns.empty());
  EXPECT_DOUBLE_EQ(none.median_ns, 0);
  EXPECT_DOUBLE_EQ(none.spread, 0);
}

TEST(store_samples, the_median_is_the_fastest_placements) {
  // Placement 0 runs slow in every sample (its buffers' place in memory), 1 and 2 fast.
  const auto t = summarize_samples({21.5, 21.8, 21.6, 20.6, 20.4, 20.5, 20.7, 20.5}, {0, 0, 0, 1, 1, 1, 2, 2});
  EXPECT_EQ(t.placements, 3);
  EXPECT_EQ(t.sample_placement, (std::vector<int>{0, 0, 0, 1, 1, 1, 2, 2}));
  EXPECT_DOUBLE_EQ(t.median_ns, 20.5); // placement 1: 20.5; placement 2: 20.6; placement 0: 21.6
  EXPECT_DOUBLE_EQ(t.min_ns, 20.4);    // the rest over every sample
  EXPECT_DOUBLE_EQ(t.max_ns, 21.8);
  EXPECT_DOUBLE_EQ(t.spread, (21.8 - 20.4) / 20.5);
  EXPECT_DOUBLE_EQ(bb::store::fastest_placement_median({3, 1, 2}, {}), 2); // no placements: one
}

TEST(store_samples, without_placements_every_sample_is_the_first_instances) {
  const auto t = summarize_samples({5, 1, 3});
  EXPECT_EQ(t.placements, 1);
  EXPECT_EQ(t.sample_placement, (std::vector<int>{0, 0, 0}));
  EXPECT_EQ(summarize_samples({}).placements, 0);
}

TEST(store_samples, bandwidth_is_bytes_per_nanosecond) {
  EXPECT_DOUBLE_EQ(bb::store::bandwidth_gbps(8'000, 4), 2000);
  EXPECT_DOUBLE_EQ(bb::store::bandwidth_gbps(8'000, 0), 0);
}

TEST(store_samples, timestamps_are_utc_with_milliseconds) {
  const std::string now = bb::store::utc_now_iso8601();
  EXPECT_TRUE(std::regex_match(now, std::regex(R"(20\d\d-[01]\d-[0-3]\dT[0-2]\d:[0-5]\d:[0-6]\d\.\d{3}Z)"))) << now;
}

} // namespace
