// Sweep expansion: order, zip, exclude, defaults and canonical params.
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "runner/common/error.hpp"
#include "runner/config/build.hpp"
#include "runner/config/experiment.hpp"

namespace bb_test {
bb::registry fake_registry(); // test_config_load.cpp
}

namespace {

using bb::config::configuration;
using bb::config::expand;

bb::config::experiment load(const std::string& family, const std::string& variants, const std::string& rest) {
  const std::string text = "name: sweep\ndescription: d\nfamily: " + family + "\nvariants: " + variants + "\n" + rest;
  return bb::config::load_experiment_text(text, "sweep.yaml", bb_test::fake_registry());
}

// (variant, n, tile) of every configuration, in order.
std::vector<std::tuple<std::string, int, int>> points(const std::vector<configuration>& configs) {
  std::vector<std::tuple<std::string, int, int>> out;
  for (const auto& c : configs)
    out.emplace_back(c.variant, c.params.at("n").get<int>(), c.params.at("tile").get<int>());
  return out;
}

TEST(config_expand, cartesian_product_variants_outermost_first_axis_slowest) {
  const auto configs = expand(load("transpose", "[padded, naive]", "axes:\n  n: [1, 2, 3]\n  tile: [8, 16]\n"));
  using p = std::tuple<std::string, int, int>;
  EXPECT_EQ(points(configs), (std::vector<p>{{"padded", 1, 8},
                                             {"padded", 1, 16},
                                             {"padded", 2, 8},
                                             {"padded", 2, 16},
                                             {"padded", 3, 8},
                                             {"padded", 3, 16},
                                             {"naive", 1, 8},
                                             {"naive", 1, 16},
                                             {"naive", 2, 8},
                                             {"naive", 2, 16},
                                             {"naive", 3, 8},
                                             {"naive", 3, 16}}));
  for (std::size_t i = 0; i < configs.size(); ++i) EXPECT_EQ(configs[i].index, i);
}

TEST(config_expand, axis_order_follows_the_file) {
  const auto configs = expand(load("transpose", "[naive]", "axes:\n  tile: [8, 16]\n  n: [1, 2]\n"));
  using p = std::tuple<std::string, int, int>;
  EXPECT_EQ(points(configs), (std::vector<p>{{"naive", 1, 8}, {"naive", 2, 8}, {"naive", 1, 16}, {"naive", 2, 16}}));
}

TEST(config_expand, zip_advances_together) {
  const auto configs = expand(
      load("transpose", "[naive, padded]", "axes:\n  n: [1, 2, 3]\n  tile: [8, 16, 32]\nzip:\n  - [n, tile]\n"));
  using p = std::tuple<std::string, int, int>;
  EXPECT_EQ(points(configs), (std::vector<p>{{"naive", 1, 8},
                                             {"naive", 2, 16},
                                             {"naive", 3, 32},
                                             {"padded", 1, 8},
                                             {"padded", 2, 16},
                                             {"padded", 3, 32}}));
}

TEST(config_expand, zip_group_takes_the_place_of_its_first_axis) {
  // n and alpha are zipped; the group sits where n is, so dtype varies fastest.
  const auto configs = expand(load("reduce", "[tree]",
                                   "axes:\n  n: [64, 128]\n  dtype: [float, half]\n  alpha: [0.5, 2]\n"
                                   "zip:\n  - [alpha, n]\n"));
  std::vector<std::string> got;
  for (const auto& c : configs) got.push_back(bb::config::describe_params(c.params));
  EXPECT_EQ(got, (std::vector<std::string>{"alpha=0.5 dtype=float n=64", "alpha=0.5 dtype=half n=64",
                                           "alpha=2 dtype=float n=128", "alpha=2 dtype=half n=128"}));
}

TEST(config_expand, exclude_drops_every_match_and_renumbers) {
  const auto configs = expand(load("transpose", "[naive, padded]",
                                   "axes:\n  n: [1, 2]\n  tile: [8, 16]\n"
                                   "exclude:\n  - variant: padded\n    n: 2\n  - tile: 16\n"));
  using p = std::tuple<std::string, int, int>;
  EXPECT_EQ(points(configs), (std::vector<p>{{"naive", 1, 8}, {"naive", 2, 8}, {"padded", 1, 8}}));
  for (std::size_t i = 0; i < configs.size(); ++i) EXPECT_EQ(configs[i].index, i);
}

TEST(config_expand, defaults_fill_params_the_axes_do_not_name) {
  const auto configs = expand(load("transpose", "[naive]", "axes:\n  n: [4096]\n"));
  ASSERT_EQ(configs.size(), 1U);
  EXPECT_EQ(configs[0].params, (nlohmann::json{{"n", 4096}, {"tile", 32}}));
}

TEST(config_expand, params_json_is_canonical) {
  // The file names tile before n; the JSON is sorted all the same.
  const auto configs = expand(load("transpose", "[naive]", "axes:\n  tile: [16]\n  n: [2048]\n"));
  ASSERT_EQ(configs.size(), 1U);
  EXPECT_EQ(configs[0].params.dump(), R"({"n":2048,"tile":16})");
}

TEST(config_expand, no_axes_gives_one_configuration_per_variant) {
  const auto configs = expand(load("transpose", "[swizzled, naive]", ""));
  ASSERT_EQ(configs.size(), 2U);
  EXPECT_EQ(configs[0].variant, "swizzled");
  EXPECT_EQ(configs[1].variant, "naive");
  EXPECT_EQ(configs[1].params.dump(), R"({"n":1024,"tile":32})");
}

TEST(config_expand, describe_params) {
  EXPECT_EQ(bb::config::describe_params({{"tile", 32}, {"n", 1024}, {"dtype", "half"}, {"alpha", 0.25}}),
            "alpha=0.25 dtype=half n=1024 tile=32");
  EXPECT_EQ(bb::config::describe_params(nlohmann::json::object()), "");
}

std::string values(int count) {
  std::string out = "[";
  for (int i = 1; i <= count; ++i) out += (i > 1 ? ", " : "") + std::to_string(i);
  return out + "]";
}

TEST(config_expand, sweep_at_the_limit_loads) {
  const auto e = load("transpose", "[naive]", "axes:\n  n: " + values(400) + "\n  tile: " + values(250) + "\n");
  EXPECT_EQ(expand(e).size(), bb::config::k_max_configurations);
}

TEST(config_expand, excludes_count_towards_the_limit) {
  // 2 x 300 x 300 = 180000 before exclusion, 90000 after: allowed.
  const std::string axes = "axes:\n  n: " + values(300) + "\n  tile: " + values(300) + "\n";
  const auto e = load("transpose", "[naive, padded]", axes + "exclude:\n  - variant: padded\n");
  EXPECT_EQ(expand(e).size(), 90000U);
  try {
    (void)load("transpose", "[naive, padded]", axes);
    FAIL() << "expected a config_error";
  } catch (const bb::config_error& err) {
    ASSERT_EQ(err.diagnostics().size(), 1U);
    EXPECT_EQ(err.diagnostics()[0].message,
              "the sweep expands to 180000 configurations, more than the limit of 100000");
  }
}

// The message of the one diagnostic loading the sweep gives; "" when it loads.
std::string limit_message(const std::string& variants, const std::string& rest) {
  try {
    (void)load("transpose", variants, rest);
  } catch (const bb::config_error& err) {
    return err.diagnostics().size() == 1 ? err.diagnostics()[0].message : err.what();
  }
  return "";
}

TEST(config_expand, the_limit_is_counted_after_exclusions_past_four_million_combinations) {
  // 3000 x 2000 = 6,000,000 before exclusion. Excluding 2950 values of n leaves 50 x 2000 =
  // 100000: allowed, though the product is past what the count used to walk.
  const std::string axes = "axes:\n  n: " + values(3000) + "\n  tile: " + values(2000) + "\n";
  std::string exclude = "exclude:\n";
  for (int n = 1; n <= 2950; ++n) exclude += "  - {n: " + std::to_string(n) + "}\n";
  const auto e = load("transpose", "[naive]", axes + exclude);
  EXPECT_EQ(bb::config::detail::count_configurations(e).count, 100000U);
  EXPECT_TRUE(bb::config::detail::count_configurations(e).exact);
  EXPECT_EQ(expand(e).size(), bb::config::k_max_configurations);
  // One value fewer excluded: the exact count is over, and said without "before exclusions".
  EXPECT_EQ(limit_message("[naive, padded]", axes + "exclude:\n  - {variant: padded}\n  - {n: 1}\n"),
            "the sweep expands to 5998000 configurations, more than the limit of 100000");
}

TEST(config_expand, the_limit_is_counted_before_exclusions_only_when_the_named_axes_alone_are_too_many) {
  // An entry naming both axes makes 6,000,000 combinations to walk: held to the product.
  const std::string axes = "axes:\n  n: " + values(3000) + "\n  tile: " + values(2000) + "\n";
  EXPECT_EQ(limit_message("[naive]", axes + "exclude:\n  - {n: 1, tile: 1}\n"),
            "the sweep expands to 6000000 configurations before exclusions, more than the limit of 100000");
}

} // namespace
