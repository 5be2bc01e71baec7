// Source experiments: the example files load into source variants, fields merged over source:.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "runner/common/error.hpp"
#include "runner/config/experiment.hpp"

namespace bb_test {
bb::registry fake_registry(); // test_config_load.cpp
}

namespace {

using bb::config::load_experiment_file;

TEST(config_source, example_transpose_loads_with_merged_fields) {
  const std::string path = std::string(BB_SOURCE_DIR) + "/experiments/source/transpose.yaml";
  const auto e = load_experiment_file(path, bb_test::fake_registry());
  EXPECT_EQ(e.family, "source");
  EXPECT_EQ(e.variants, (std::vector<std::string>{"direct", "naive", "padded", "swizzled"}));
  ASSERT_EQ(e.sources.size(), 4u);
  const auto* padded = e.find_source("padded");
  ASSERT_NE(padded, nullptr);
  EXPECT_EQ(padded->file, std::string(BB_SOURCE_DIR) + "/experiments/source/transpose.cu");
  EXPECT_EQ(padded->kernel, "transpose<padded, tile, block_rows>");
  EXPECT_EQ(padded->grid, (std::vector<std::string>{"ceil_div(n, tile)", "ceil_div(n, tile)"}));
  EXPECT_EQ(padded->block, (std::vector<std::string>{"min(tile, 32)", "block_rows"}));
  ASSERT_EQ(padded->args.size(), 3u);
  EXPECT_TRUE(padded->args[0].is_buffer);
  EXPECT_EQ(padded->args[0].init, "uniform");
  EXPECT_FALSE(padded->args[0].output);
  EXPECT_TRUE(padded->args[1].output);
  EXPECT_FALSE(padded->args[1].init_given); // poisoned before the verified launch
  EXPECT_FALSE(padded->args[2].is_buffer);
  EXPECT_EQ(padded->args[2].expression, "n"); // a scalar without value: the axis of its name
  ASSERT_TRUE(padded->check.has_value());
  EXPECT_EQ(padded->check->reference, "direct");
  EXPECT_FALSE(e.find_source("direct")->check.has_value()); // check: null overrides source:'s
  EXPECT_EQ(bb::config::expand(e).size(), 8u);
}

TEST(config_source, example_histogram_defines_and_check_file) {
  const std::string path = std::string(BB_SOURCE_DIR) + "/experiments/source/histogram.yaml";
  const auto e = load_experiment_file(path, bb_test::fake_registry());
  const auto* one = e.find_source("one_copy");
  ASSERT_NE(one, nullptr);
  ASSERT_EQ(one->defines.size(), 1u);
  EXPECT_EQ(one->defines[0], (std::pair<std::string, std::string>{"COPIES", "1"}));
  ASSERT_TRUE(one->check.has_value());
  EXPECT_EQ(one->check->file, std::string(BB_SOURCE_DIR) + "/experiments/source/histogram_4m.bin");
  EXPECT_EQ(one->args[1].init, "zeros");
  EXPECT_TRUE(one->args[1].init_given); // an accumulator: reset, not poisoned
  EXPECT_EQ(one->grid, (std::vector<std::string>{"ceil_div(n, 256 * 16)"}));
}

TEST(config_source, substitute_and_evaluate_over_params) {
  const nlohmann::json params = {{"tile", 32}, {"type", "double"}, {"n", 4096}};
  EXPECT_EQ(bb::config::substitute_params("transpose<padded, tile, type>", params), "transpose<padded, 32, double>");
  EXPECT_EQ(bb::config::substitute_params("ns::tile<x.tile>", params), "ns::tile<x.tile>"); // members stay
  EXPECT_EQ(bb::config::evaluate_param_expression("ceil_div(n, tile)", params, "v: grid"), 128);
  try {
    (void)bb::config::evaluate_param_expression("n * type", params, "e/v: buffer 'x' count");
    FAIL() << "no error";
  } catch (const bb::error& err) {
    EXPECT_EQ(std::string(err.what()),
              "e/v: buffer 'x' count: in 'n * type': axis 'type' is \"double\", not an integer at column 1");
    EXPECT_EQ(err.code(), bb::exit_code::usage);
  }
}

// A quoted axis value that an integer expression evaluates: one error at the value, not one per
// variant line that evaluates it.
TEST(config_source, a_quoted_axis_value_in_an_integer_expression_is_reported_once_at_the_axis) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("bb_quoted_axis_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path examples = fs::path(BB_SOURCE_DIR) / "experiments/source";
  fs::copy_file(examples / "transpose.cu", dir / "transpose.cu", fs::copy_options::overwrite_existing);
  std::ifstream in(examples / "transpose.yaml");
  std::stringstream text;
  text << in.rdbuf();
  std::string yaml = text.str();
  const std::string axes = "axes: {n: [1024, 4096], tile: [32], block_rows: [8]}";
  ASSERT_NE(yaml.find(axes), std::string::npos);
  yaml.replace(yaml.find(axes), axes.size(), "axes: {n: [1024, 4096], tile: [\"32\"], block_rows: [8]}");
  std::ofstream(dir / "t.yaml") << yaml;
  std::vector<std::string> messages;
  try {
    (void)load_experiment_file((dir / "t.yaml").string(), bb_test::fake_registry());
  } catch (const bb::config_error& e) {
    for (const auto& d : e.diagnostics()) messages.push_back(d.to_string());
  }
  fs::remove_all(dir);
  ASSERT_EQ(messages.size(), 1U);
  EXPECT_EQ(messages[0], (dir / "t.yaml").string() +
                             ":21:32: error: axes.tile[0]: axis 'tile' value '32' is a quoted string, but "
                             "'ceil_div(n, tile)' (source.grid) needs an integer (write 32 without quotes)");
}

} // namespace
