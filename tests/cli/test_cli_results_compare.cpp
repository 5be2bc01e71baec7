// bankbench compare on a fixture database: variants, GPUs (and the model), runs; every format.
#include <gtest/gtest.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "../data/results/fixtures.hpp"
#include "../data/results/test_helpers.hpp"
#include "cli_runner.hpp"

namespace {

using bb::test::run_cli;
using namespace bb::test::results;

class cli_compare : public ::testing::Test {
protected:
  void SetUp() override { build_fixture(m_tmp.file("f.sqlite")); }
  bb::test::cli_result compare(const std::string& args) {
    return run_cli("--db '" + m_tmp.file("f.sqlite") + "' compare " + args);
  }
  temp_folder m_tmp;
};

TEST_F(cli_compare, variants_of_a_run) {
  const auto r = compare("variants 1 --metric load_wavefronts_per_request,load_conflicts_per_request");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  expect_golden("compare_variants.txt", r.out);
}

TEST_F(cli_compare, one_experiment_across_gpus_and_the_model) {
  const auto r = compare("gpus transpose --metric load_wavefronts_per_request,median_ns");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  expect_golden("compare_gpus.txt", r.out);
}

TEST_F(cli_compare, run_against_run_in_markdown) {
  const auto r = compare("runs 1 6 -m load_conflicts_per_request,median_ns -f markdown");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  expect_golden("compare_runs.md", r.out);
}

TEST_F(cli_compare, csv_has_a_field_per_column_and_json_parses) {
  auto r = compare("runs 2 3 4 -f csv");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line;
  std::size_t header = 0, rows = 0;
  while (std::getline(lines, line)) {
    // No field holds a comma except the quoted params_json, which has none here (one parameter).
    const auto commas = static_cast<std::size_t>(std::count(line.begin(), line.end(), ','));
    if (header == 0)
      header = commas;
    else
      EXPECT_EQ(commas, header) << line;
    ++rows;
  }
  EXPECT_EQ(header + 1, 3U + 3 * (3 + 2)); // keys, then per metric 3 values and 2 ratios
  EXPECT_EQ(rows, 10U);
  r = compare("gpus -f json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["sides"].size(), 3U);
  EXPECT_EQ(doc["rows"].size(), 9U);
}

TEST_F(cli_compare, mistakes_exit_2) {
  EXPECT_EQ(compare("runs 1").exit_code, 2);
  EXPECT_EQ(compare("sideways 1").exit_code, 2);
  EXPECT_EQ(compare("gpus reduce").exit_code, 2);
  const auto r = compare("variants 1 --reference diagonal");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("run 1 has no variant 'diagonal'"), std::string::npos) << r.err;
}

} // namespace
