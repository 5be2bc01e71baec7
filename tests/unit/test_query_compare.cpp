// compare: variants of a run, runs side by side, ratios, and every output format.
#include <gtest/gtest.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "../data/results/fixtures.hpp"
#include "../data/results/test_helpers.hpp"
#include "runner/common/error.hpp"
#include "runner/query/compare.hpp"
#include "runner/query/selector.hpp"

namespace {

using namespace bb::query;
using namespace bb::test::results;

class query_compare : public ::testing::Test {
protected:
  void SetUp() override {
    build_fixture(m_tmp.file("f.sqlite"));
    m_db.emplace(bb::store::database::open_existing(m_tmp.file("f.sqlite")));
  }
  temp_folder m_tmp;
  std::optional<bb::store::database> m_db;
};

TEST_F(query_compare, variants_of_one_run_are_columns_divided_by_the_reference) {
  const auto t = compare_variants(select_side(*m_db, "1", {}), {"load_wavefronts_per_request"}, "swizzled");
  EXPECT_TRUE(t.by_variant);
  ASSERT_EQ(t.labels.size(), 3U);
  EXPECT_EQ(t.labels[0], "swizzled");
  ASSERT_EQ(t.rows.size(), 3U);           // n = 1024, 4096, 8192
  EXPECT_EQ(*t.rows[0].values[0][0], 1);  // swizzled
  EXPECT_EQ(*t.rows[0].values[0][1], 32); // naive
  EXPECT_THROW(compare_variants(select_side(*m_db, "1", {}), {"median_ns"}, "nope"), bb::usage_error);
}

TEST_F(query_compare, runs_side_by_side_match_configurations_across_gpus) {
  const auto t = compare_sides({select_side(*m_db, "1", {}), select_side(*m_db, "3", {}), select_side(*m_db, "4", {})},
                               {"load_conflicts_per_request", "median_ns"});
  ASSERT_EQ(t.rows.size(), 9U);
  const auto& padded = t.rows[4];
  EXPECT_EQ(padded.variant, "transpose/padded");
  EXPECT_NEAR(*padded.values[0][0], 0.1177, 1e-4); // H200
  EXPECT_EQ(*padded.values[0][1], 0);              // RTX 4090
  EXPECT_EQ(*padded.values[0][2], 0);              // the model
  EXPECT_TRUE(padded.values[1][1].has_value());
  EXPECT_FALSE(padded.values[1][2].has_value()); // the model has no time
}

TEST_F(query_compare, csv_and_json_parse_back) {
  const auto t = compare_sides({select_side(*m_db, "1", {}), select_side(*m_db, "6", {})},
                               {"load_wavefronts_per_request", "median_ns"});
  std::ostringstream csv, json;
  write_compare(t, csv, "csv");
  write_compare(t, json, "json");
  std::istringstream lines(csv.str());
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "experiment,variant,params_json,load_wavefronts_per_request[run 1],"
                  "load_wavefronts_per_request[run 6],load_wavefronts_per_request[run 6/run 1],median_ns[run 1],"
                  "median_ns[run 6],median_ns[run 6/run 1]");
  int rows = 0;
  while (std::getline(lines, line)) ++rows;
  EXPECT_EQ(rows, 9);
  const auto doc = nlohmann::json::parse(json.str());
  EXPECT_EQ(doc["rows"].size(), 9U);
  EXPECT_EQ(doc["rows"][0]["values"]["load_wavefronts_per_request"][1], 16.0);
  EXPECT_EQ(doc["rows"][0]["ratios"]["load_wavefronts_per_request"][1], 0.5);
  EXPECT_TRUE(doc["rows"][0]["ratios"]["load_wavefronts_per_request"][0].is_null());
}

} // namespace
