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

// A session of two experiments: one table each, no ratio between a variant of one and a variant of
// the other.
TEST_F(query_compare, variants_of_a_session_are_compared_per_experiment) {
  auto s = select_side(*m_db, "1", {});
  const auto transpose_rows = s.rows;
  for (auto r : transpose_rows) {
    if (r.variant == "transpose/padded") continue;
    r.experiment = "reduce";
    r.variant = r.variant == "transpose/naive" ? "reduce/tree" : "reduce/warp";
    s.rows.push_back(r);
  }
  s.label = "session 1";
  s.description = "session 1: two experiments";
  const auto tables = compare_variants_per_experiment(s, {"load_wavefronts_per_request"}, "");
  ASSERT_EQ(tables.size(), 2U);
  EXPECT_EQ(tables[0].labels, (std::vector<std::string>{"naive", "padded", "swizzled"}));
  EXPECT_EQ(tables[1].labels, (std::vector<std::string>{"tree", "warp"}));
  std::ostringstream out;
  write_compares(tables, out, "table");
  EXPECT_EQ(out.str(), "compare: variants of session 1, experiment transpose\n\n"
                       "run 1: transpose on NVIDIA H200 (sm_90), commit 1111aaaa1111, 2026-11-01T10:00:00.000Z\n\n"
                       "params  ld wf/req naive  ld wf/req padded  ld wf/req swizzled  padded/naive  swizzled/naive\n"
                       "------  ---------------  ----------------  ------------------  ------------  --------------\n"
                       "n=1024               32             1.118                   1       0.0349x         0.0312x\n"
                       "n=4096               32             1.118                   1       0.0349x         0.0312x\n"
                       "n=8192               32             1.118                   1       0.0349x         0.0312x\n"
                       "\n"
                       "compare: variants of session 1, experiment reduce\n\n"
                       "session 1: two experiments\n\n"
                       "params  ld wf/req tree  ld wf/req warp  warp/tree\n"
                       "------  --------------  --------------  ---------\n"
                       "n=1024              32               1    0.0312x\n"
                       "n=4096              32               1    0.0312x\n"
                       "n=8192              32               1    0.0312x\n");
  // The reference applies where it ran; a variant no experiment ran is a mistake.
  EXPECT_EQ(compare_variants_per_experiment(s, {"median_ns"}, "warp")[1].labels[0], "warp");
  EXPECT_EQ(compare_variants_per_experiment(s, {"median_ns"}, "warp")[0].labels[0], "naive");
  EXPECT_THROW(compare_variants_per_experiment(s, {"median_ns"}, "nope"), bb::usage_error);
  std::ostringstream json;
  write_compares(tables, json, "json");
  const auto doc = nlohmann::json::parse(json.str());
  ASSERT_TRUE(doc.is_array());
  EXPECT_EQ(doc.size(), 2U);
  EXPECT_EQ(doc[1]["sides"].size(), 2U);
}

} // namespace
