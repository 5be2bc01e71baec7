// Loading good experiment files: every key read with its value, and defaults filled.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "runner/common/error.hpp"
#include "runner/common/metrics.hpp"
#include "runner/config/experiment.hpp"

namespace bb::embedded {
extern const char experiment_schema[];
}

namespace bb_test {

// Shared by every test_config_*.cpp (one binary): a registry with two fake families.
bb::registry fake_registry() {
  bb::registry reg;
  reg.add_family({"transpose", "fake transpose", {{"n", 1024, "matrix side"}, {"tile", 32, "tile side"}}});
  for (const char* v : {"naive", "padded", "swizzled"}) reg.add_variant({"transpose", v, "fake", nullptr});
  reg.add_family({"reduce",
                  "fake reduction",
                  {{"n", 1 << 20, "elements"}, {"dtype", "float", "element type"}, {"alpha", 0.5, "scale"}}});
  for (const char* v : {"tree", "warp_shuffle"}) reg.add_variant({"reduce", v, "fake", nullptr});
  return reg;
}

} // namespace bb_test

namespace {

using bb::config::experiment;
using bb::config::load_experiment_file;
using bb::config::load_experiment_text;

std::string data(const std::string& rel) { return std::string(BB_TEST_DATA) + "/" + rel; }

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(config_load, real_transpose_experiment) {
  const std::string path = std::string(BB_SOURCE_DIR) + "/experiments/transpose/transpose.yaml";
  const experiment e = load_experiment_file(path, bb_test::fake_registry());
  EXPECT_EQ(e.path, path);
  EXPECT_EQ(e.text, read(path));
  EXPECT_EQ(e.name, "transpose");
  EXPECT_EQ(e.family, "transpose");
  EXPECT_EQ(e.description.rfind("32x32 shared-tile transpose of a float matrix", 0), 0U) << e.description;
  EXPECT_EQ(e.variants, (std::vector<std::string>{"naive", "padded", "swizzled"}));
  ASSERT_EQ(e.axes.size(), 1U);
  EXPECT_EQ(e.axes[0].name, "n");
  EXPECT_EQ(e.axes[0].values, (std::vector<nlohmann::json>{1024, 4096, 8192}));
  EXPECT_TRUE(e.zip.empty());
  EXPECT_TRUE(e.exclude.empty());
  EXPECT_EQ(e.metrics.set_name(), "bank_conflicts");
  EXPECT_EQ(e.metrics.names(), bb::metrics::find_set("bank_conflicts")->metrics);
  EXPECT_EQ(e.repeat.warmup, 3);
  EXPECT_EQ(e.repeat.samples, 20);
  EXPECT_EQ(e.repeat.placements, 1);
  EXPECT_EQ(e.repeat.counter_launches, 1);
  EXPECT_EQ(e.seed, 20261121U);
  EXPECT_EQ(e.defaults, (nlohmann::json{{"n", 1024}, {"tile", 32}}));
  ASSERT_EQ(e.expectations.size(), 4U);
  const auto& x = e.expectations;
  EXPECT_EQ(x[0].text, "load_wavefronts_per_request in [31, 33]");
  EXPECT_EQ(x[0].variants, (std::vector<std::string>{"naive"}));
  EXPECT_EQ(x[0].line, 21);
  EXPECT_EQ(x[0].column, 5);
  EXPECT_EQ(x[1].text, "load_wavefronts_per_request in [1, 1.2]");
  EXPECT_EQ(x[1].variants, (std::vector<std::string>{"padded", "swizzled"}));
  EXPECT_EQ(x[2].text, "load_conflicts_per_request < 0.02");
  EXPECT_EQ(x[2].line, 32);
  EXPECT_EQ(x[2].where, (nlohmann::json{{"n", 1024}}));
  EXPECT_EQ(x[3].text, "store_wavefronts_per_request in [1, 1.05]");
  EXPECT_TRUE(x[3].variants.empty());
  EXPECT_EQ(x[3].where, nlohmann::json::object());
  EXPECT_EQ(bb::config::expand(e).size(), 9U);
}

TEST(config_load, every_key) {
  const experiment e = load_experiment_file(data("good/full.yaml"), bb_test::fake_registry());
  EXPECT_EQ(e.name, "full-example_1");
  EXPECT_EQ(e.description, "every key of the experiment format");
  EXPECT_EQ(e.variants, (std::vector<std::string>{"padded", "naive"}));
  ASSERT_EQ(e.axes.size(), 2U);
  EXPECT_EQ(e.axes[0].name, "tile"); // file order, not sorted
  EXPECT_EQ(e.axes[1].name, "n");
  EXPECT_EQ(e.axes[1].values, (std::vector<nlohmann::json>{1024, 2048}));
  EXPECT_EQ(e.zip, (std::vector<std::vector<std::string>>{{"tile", "n"}}));
  ASSERT_EQ(e.exclude.size(), 1U);
  EXPECT_EQ(e.exclude[0], (nlohmann::json{{"variant", "naive"}, {"tile", 16}}));
  EXPECT_EQ(e.metrics.set_name(), "");
  EXPECT_EQ(e.metrics.names(), (std::vector<std::string>{"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                                                         "smsp__sass_inst_executed_op_shared_ld.sum"}));
  EXPECT_EQ(e.repeat.warmup, 0);
  EXPECT_EQ(e.repeat.samples, 5);
  EXPECT_EQ(e.repeat.placements, 2);
  EXPECT_EQ(e.repeat.counter_launches, 2);
  EXPECT_EQ(e.seed, 42U);

  ASSERT_EQ(e.expectations.size(), 3U);
  const auto& above = e.expectations[0];
  EXPECT_EQ(above.variants, (std::vector<std::string>{"naive"}));
  EXPECT_EQ(above.where, (nlohmann::json{{"n", 2048}}));
  EXPECT_EQ(above.metric, "load_conflicts");
  EXPECT_EQ(above.low, 5.0);
  EXPECT_FALSE(above.low_inclusive);
  EXPECT_FALSE(above.high.has_value());
  EXPECT_EQ(above.text, "load_conflicts > 5");
  EXPECT_EQ(above.line, 24);
  EXPECT_EQ(above.column, 5);
  const auto& below = e.expectations[1];
  EXPECT_EQ(below.metric,
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"); // a listed raw metric
  EXPECT_EQ(below.high, 1500.0);
  EXPECT_FALSE(below.high_inclusive);
  EXPECT_FALSE(below.low.has_value());
  EXPECT_EQ(below.text, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum < 1500");
  const auto& between = e.expectations[2];
  EXPECT_EQ(between.low, -1.0);
  EXPECT_EQ(between.high, 0.5);
  EXPECT_TRUE(between.low_inclusive);
  EXPECT_TRUE(between.high_inclusive);
  EXPECT_EQ(between.text, "load_conflicts_per_request in [-1, 0.5]");
}

TEST(config_load, minimal_file_gets_defaults) {
  const experiment e = load_experiment_file(data("good/minimal.yaml"), bb_test::fake_registry());
  EXPECT_TRUE(e.axes.empty());
  EXPECT_TRUE(e.zip.empty());
  EXPECT_TRUE(e.exclude.empty());
  EXPECT_TRUE(e.expectations.empty());
  EXPECT_EQ(e.metrics.set_name(), "bank_conflicts");
  EXPECT_EQ(e.metrics.names().size(), 7U); // load and store requests, wavefronts, conflicts; duration
  EXPECT_EQ(e.repeat.warmup, 3);
  EXPECT_EQ(e.repeat.samples, 20);
  EXPECT_EQ(e.repeat.placements, 1);
  EXPECT_EQ(e.repeat.counter_launches, 1);
  EXPECT_EQ(e.seed, 1U);
  const auto configs = bb::config::expand(e);
  ASSERT_EQ(configs.size(), 1U);
  EXPECT_EQ(configs[0].variant, "swizzled");
  EXPECT_EQ(configs[0].params.dump(), R"({"n":1024,"tile":32})");
}

TEST(config_load, string_and_float_params) {
  const experiment e = load_experiment_file(data("good/mixed_params.yaml"), bb_test::fake_registry());
  EXPECT_EQ(e.metrics.set_name(), "duration");
  EXPECT_EQ(e.metrics.names(), (std::vector<std::string>{bb::metrics::k_gpu_time}));
  ASSERT_EQ(e.axes.size(), 2U);
  // A quoted "1" stays a string; a plain 1 is an integer, accepted for a float-default param.
  EXPECT_EQ(e.axes[0].values, (std::vector<nlohmann::json>{"float", "half", "1"}));
  EXPECT_EQ(e.axes[1].values, (std::vector<nlohmann::json>{0.25, 1}));
  EXPECT_TRUE(e.axes[1].values[1].is_number_integer());
  const auto configs = bb::config::expand(e);
  ASSERT_EQ(configs.size(), 12U);
  EXPECT_EQ(configs[0].params.dump(), R"({"alpha":0.25,"dtype":"float","n":1048576})");
  EXPECT_EQ(configs[11].variant, "warp_shuffle");
  EXPECT_EQ(configs[11].params.dump(), R"({"alpha":1,"dtype":"1","n":1048576})");
}

TEST(config_load, text_uses_given_path_in_messages) {
  const std::string text = "name: x\ndescription: d\nfamily: transpose\nvariants: [naiv]\n";
  try {
    (void)load_experiment_text(text, "memory.yaml", bb_test::fake_registry());
    FAIL() << "expected a config_error";
  } catch (const bb::config_error& err) {
    ASSERT_EQ(err.diagnostics().size(), 1U);
    EXPECT_EQ(err.diagnostics()[0].to_string(),
              "memory.yaml:4:12: error: variants[0]: family 'transpose' has no variant 'naiv' "
              "(did you mean 'naive'?)");
    EXPECT_EQ(err.code(), bb::exit_code::usage);
  }
}

TEST(config_load, text_keeps_path_and_text) {
  const std::string text = "name: x\ndescription: d\nfamily: transpose\nvariants: [naive]\n";
  const experiment e = load_experiment_text(text, "x.yaml", bb_test::fake_registry());
  EXPECT_EQ(e.path, "x.yaml");
  EXPECT_EQ(e.text, text);
}

bb::diagnostic only_diagnostic(const std::string& path) {
  try {
    (void)load_experiment_file(path, bb_test::fake_registry());
  } catch (const bb::config_error& err) {
    EXPECT_EQ(err.diagnostics().size(), 1U);
    if (!err.diagnostics().empty()) return err.diagnostics()[0];
  }
  ADD_FAILURE() << "no config_error for " << path;
  return {};
}

TEST(config_load, missing_file) {
  const std::string path = data("good/no_such_file.yaml");
  const bb::diagnostic d = only_diagnostic(path);
  EXPECT_EQ(d.file, path);
  EXPECT_EQ(d.line, 0);
  EXPECT_EQ(d.message, "cannot read file: No such file or directory");
  EXPECT_EQ(d.to_string(), path + ": error: cannot read file: No such file or directory");
}

TEST(config_load, directory_is_not_a_file) {
  const bb::diagnostic d = only_diagnostic(data("good"));
  EXPECT_EQ(d.message, "a folder, not an experiment file");
}

TEST(config_load, no_registered_family) {
  const bb::registry empty;
  try {
    (void)load_experiment_file(data("good/minimal.yaml"), empty);
    FAIL() << "expected a config_error";
  } catch (const bb::config_error& err) {
    ASSERT_EQ(err.diagnostics().size(), 1U);
    EXPECT_EQ(err.diagnostics()[0].message, "unknown family 'transpose'");
    EXPECT_EQ(err.diagnostics()[0].hint, "no kernel family is registered in this build");
  }
}

// The schema documents the defaults; the structs apply them. They must agree.
TEST(config_load, schema_defaults_match_the_structs) {
  const auto schema = nlohmann::json::parse(bb::embedded::experiment_schema);
  const auto& repeat = schema["properties"]["repeat"]["properties"];
  const bb::config::repeat_spec r;
  EXPECT_EQ(repeat["warmup"]["default"], r.warmup);
  EXPECT_EQ(repeat["samples"]["default"], r.samples);
  EXPECT_EQ(repeat["counter_launches"]["default"], r.counter_launches);
  EXPECT_EQ(schema["properties"]["seed"]["default"], experiment{}.seed);
  EXPECT_EQ(schema["properties"]["metrics"]["default"],
            load_experiment_file(data("good/minimal.yaml"), bb_test::fake_registry()).metrics.set_name());
}

} // namespace
