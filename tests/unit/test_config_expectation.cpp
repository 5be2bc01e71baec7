// expectation::applies_to and expectation::holds.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "runner/config/experiment.hpp"

namespace bb_test {
bb::registry fake_registry(); // test_config_load.cpp
}

namespace {

using bb::config::expectation;

std::vector<expectation> load_expectations(const std::string& expect_yaml) {
  const std::string text = "name: e\ndescription: d\nfamily: transpose\nvariants: [naive, padded]\n"
                           "axes:\n  n: [1024, 4096]\nexpect:\n" +
                           expect_yaml;
  return bb::config::load_experiment_text(text, "e.yaml", bb_test::fake_registry()).expectations;
}

constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();
constexpr double k_inf = std::numeric_limits<double>::infinity();

TEST(config_expectation, between_is_inclusive) {
  const auto e = load_expectations("  - metric: load_wavefronts_per_request\n    between: [31, 33]\n")[0];
  EXPECT_TRUE(e.holds(31.0));
  EXPECT_TRUE(e.holds(32.5));
  EXPECT_TRUE(e.holds(33.0));
  EXPECT_FALSE(e.holds(30.999));
  EXPECT_FALSE(e.holds(33.001));
  EXPECT_FALSE(e.holds(k_nan));
  EXPECT_FALSE(e.holds(k_inf));
}

TEST(config_expectation, below_is_strict) {
  const auto e = load_expectations("  - metric: load_conflicts_per_request\n    below: 0.01\n")[0];
  EXPECT_EQ(e.text, "load_conflicts_per_request < 0.01");
  EXPECT_TRUE(e.holds(0.0));
  EXPECT_TRUE(e.holds(0.0099));
  EXPECT_TRUE(e.holds(-k_inf));
  EXPECT_FALSE(e.holds(0.01));
  EXPECT_FALSE(e.holds(1.0));
  EXPECT_FALSE(e.holds(k_nan));
}

TEST(config_expectation, above_is_strict) {
  const auto e = load_expectations("  - metric: load_conflicts\n    above: 5\n")[0];
  EXPECT_EQ(e.text, "load_conflicts > 5");
  EXPECT_TRUE(e.holds(5.5));
  EXPECT_FALSE(e.holds(5.0));
  EXPECT_FALSE(e.holds(k_nan));
}

TEST(config_expectation, applies_to_every_variant_by_default) {
  const auto e = load_expectations("  - metric: load_conflicts\n    above: 5\n")[0];
  EXPECT_TRUE(e.applies_to("naive", {{"n", 1024}, {"tile", 32}}));
  EXPECT_TRUE(e.applies_to("padded", {{"n", 4096}, {"tile", 32}}));
}

TEST(config_expectation, applies_to_listed_variants_and_where) {
  const auto e = load_expectations("  - variants: [padded]\n    where: {n: 4096}\n"
                                   "    metric: load_conflicts\n    above: 5\n")[0];
  EXPECT_TRUE(e.applies_to("padded", {{"n", 4096}, {"tile", 32}}));
  EXPECT_FALSE(e.applies_to("naive", {{"n", 4096}, {"tile", 32}}));
  EXPECT_FALSE(e.applies_to("padded", {{"n", 1024}, {"tile", 32}}));
  EXPECT_FALSE(e.applies_to("padded", {{"tile", 32}})); // a where key the params lack
}

TEST(config_expectation, hand_built_bounds) {
  expectation e;
  e.low = 1.0;
  e.high = 2.0;
  e.high_inclusive = false;
  EXPECT_TRUE(e.holds(1.0));
  EXPECT_FALSE(e.holds(2.0));
  const expectation unbounded;
  EXPECT_TRUE(unbounded.holds(1e300));
  EXPECT_FALSE(unbounded.holds(k_nan));
}

} // namespace
