// Bad experiment files: every one in tests/data/bad/ must fail with exactly the diagnostics in
// its .expected file (one `file:line:col: error: key: message (hint)` per line, in order).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "runner/common/error.hpp"
#include "runner/config/experiment.hpp"

namespace bb_test {
bb::registry fake_registry(); // test_config_load.cpp
}

namespace {

namespace fs = std::filesystem;

const fs::path k_bad_dir = fs::path(BB_TEST_DATA) / "bad";

std::vector<std::string> bad_files() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(k_bad_dir))
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> expected_lines(const std::string& name) {
  std::ifstream in(k_bad_dir / (name + ".expected"));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

std::vector<bb::diagnostic> diagnostics_of(const std::string& path) {
  try {
    (void)bb::config::load_experiment_file(path, bb_test::fake_registry());
  } catch (const bb::config_error& err) {
    return err.diagnostics();
  }
  return {};
}

class config_bad_file : public ::testing::TestWithParam<std::string> {};

TEST_P(config_bad_file, reports_exactly_the_expected_diagnostics) {
  const std::string name = GetParam();
  const std::vector<std::string> expected = expected_lines(name);
  ASSERT_FALSE(expected.empty()) << "missing or empty " << name << ".expected";
  std::vector<std::string> got;
  for (bb::diagnostic d : diagnostics_of((k_bad_dir / (name + ".yaml")).string())) {
    EXPECT_EQ(d.file, (k_bad_dir / (name + ".yaml")).string());
    d.file = "bad/" + name + ".yaml"; // .expected files name it relative to tests/data
    got.push_back(d.to_string());
  }
  EXPECT_EQ(got, expected);
}

INSTANTIATE_TEST_SUITE_P(corpus, config_bad_file, ::testing::ValuesIn(bad_files()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) { return param_info.param; });

TEST(config_errors, corpus_is_large_and_complete) {
  const auto names = bad_files();
  EXPECT_GE(names.size(), 20U);
  for (const auto& name : names) EXPECT_TRUE(fs::exists(k_bad_dir / (name + ".expected"))) << name;
}

// The corpus compares whole lines; this checks the fields are split as documented.
TEST(config_errors, diagnostic_fields) {
  const std::string path = (k_bad_dir / "unknown_top_key.yaml").string();
  const auto diags = diagnostics_of(path);
  ASSERT_EQ(diags.size(), 2U);
  EXPECT_EQ(diags[0].file, path);
  EXPECT_EQ(diags[0].line, 2);
  EXPECT_EQ(diags[0].column, 1);
  EXPECT_EQ(diags[0].key, "variants");
  EXPECT_EQ(diags[0].message, "missing required key 'variants'");
  EXPECT_EQ(diags[0].hint, "add 'variants: ...'");
  EXPECT_EQ(diags[1].line, 5);
  EXPECT_EQ(diags[1].column, 1);
  EXPECT_EQ(diags[1].key, "varaints");
  EXPECT_EQ(diags[1].message, "unknown key 'varaints'");
  EXPECT_EQ(diags[1].hint, "did you mean 'variants'?");
}

TEST(config_errors, all_errors_of_a_file_sorted_by_line) {
  const auto diags = diagnostics_of((k_bad_dir / "multiple_errors.yaml").string());
  ASSERT_EQ(diags.size(), 6U);
  EXPECT_TRUE(std::is_sorted(diags.begin(), diags.end(), [](const auto& a, const auto& b) { return a.line < b.line; }));
  std::vector<std::string> keys;
  for (const auto& d : diags) keys.push_back(d.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"variants[1]", "axes.n[1]", "zip[0]", "repeat.samples", "seeed",
                                            "expect[0].metric"}));
}

// Odd documents must end in a config_error with a position, never in another exception.
TEST(config_errors, odd_documents_give_config_errors) {
  const std::vector<std::string> texts = {
      "{",
      "[1, 2]",
      "just text",
      "~",
      "name: [a]\ndescription: {x: 1}\nfamily: [transpose]\nvariants: {a: b}\n",
      "name: x\ndescription: d\nfamily: transpose\nvariants: [[naive]]\naxes: {n: {a: 1}}\n",
      "name: x\ndescription: d\nfamily: transpose\nvariants: [naive]\naxes: [n]\nzip: {a: b}\n",
      "name: x\ndescription: d\nfamily: transpose\nvariants: [naive]\nexpect: [1, [2], {metric: "
      "[x]}]\n",
      "name: x\ndescription: d\nfamily: transpose\nvariants: [naive]\nexclude: [{}, [], ~]\n",
      "? [a, b]\n: c\nname: x\n",
      "name: &a x\ndescription: *a\nfamily: transpose\nvariants: [naive]\nseed: "
      "99999999999999999999\n",
      "name: x\ndescription: d\nfamily: transpose\nvariants: [naive]\nexpect:\n  - metric: "
      "load_conflicts\n"
      "    between: [a, .nan]\n",
      "\t- x\n",
  };
  for (const auto& text : texts) {
    try {
      (void)bb::config::load_experiment_text(text, "odd.yaml", bb_test::fake_registry());
      ADD_FAILURE() << "accepted:\n" << text;
    } catch (const bb::config_error& err) {
      ASSERT_FALSE(err.diagnostics().empty()) << text;
      EXPECT_GT(err.diagnostics()[0].line, 0) << err.what();
    }
  }
}

} // namespace
