// history: one configuration's metric across runs, and the ways of naming it.
#include <gtest/gtest.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "../data/results/fixtures.hpp"
#include "../data/results/test_helpers.hpp"
#include "runner/common/error.hpp"
#include "runner/query/history.hpp"

namespace {

using namespace bb::query;
using namespace bb::test::results;

class query_history : public ::testing::Test {
protected:
  void SetUp() override {
    build_fixture(m_tmp.file("f.sqlite"));
    m_db.emplace(bb::store::database::open_existing(m_tmp.file("f.sqlite")));
  }
  std::string refusal(const history_query& q) {
    try {
      metric_history(*m_db, q);
    } catch (const bb::usage_error& e) {
      return e.what();
    }
    return "accepted";
  }
  temp_folder m_tmp;
  std::optional<bb::store::database> m_db;
};

TEST_F(query_history, one_configuration_across_every_run) {
  history_query q;
  q.variant = "swizzled";
  q.params = {parse_param_filter("n=4096")};
  q.metric = "load_conflicts_per_request";
  const auto points = metric_history(*m_db, q);
  ASSERT_EQ(points.size(), 6U);
  EXPECT_EQ(points[0].run.id, 1);
  EXPECT_EQ(*points[0].value, 0);
  EXPECT_EQ(points[5].run.git_commit, k_commit_3);
  EXPECT_EQ(*points[5].value, 0.5);
  EXPECT_EQ(points[5].launches, 3);
  q.gpu = "sm_90";
  q.limit = 2;
  const auto newest = metric_history(*m_db, q);
  ASSERT_EQ(newest.size(), 2U);
  EXPECT_EQ(newest[0].run.id, 5);
}

TEST_F(query_history, times_come_from_the_samples) {
  history_query q;
  q.variant = "transpose/naive";
  q.params = {{"n", "8192"}};
  q.metric = "median_ns";
  q.gpu = "H200";
  const auto points = metric_history(*m_db, q);
  ASSERT_EQ(points.size(), 4U);
  EXPECT_EQ(points[0].launches, 10);
  EXPECT_NEAR(*points[3].value / *points[0].value, 1.5, 1e-9);
}

TEST_F(query_history, ambiguous_or_unknown_configurations_are_refused) {
  history_query q;
  q.variant = "padded";
  EXPECT_NE(refusal(q).find("3 configurations match; name one with --param NAME=VALUE"), std::string::npos);
  q.variant = "diagonal";
  EXPECT_NE(refusal(q).find("no run in"), std::string::npos);
  EXPECT_THROW(parse_param_filter("n4096"), bb::usage_error);
}

TEST(query_history_params, a_name_given_twice_with_two_values_is_refused_and_the_same_pair_kept_once) {
  const auto kept = parse_param_filters({"n=4096", "tile=32", "n=4096"});
  ASSERT_EQ(kept.size(), 2U);
  EXPECT_EQ(kept[0], (std::pair<std::string, std::string>{"n", "4096"}));
  EXPECT_EQ(kept[1], (std::pair<std::string, std::string>{"tile", "32"}));
  try {
    (void)parse_param_filters({"n=1024", "n=2048"});
    ADD_FAILURE() << "n given twice was taken";
  } catch (const bb::usage_error& e) {
    EXPECT_EQ(std::string(e.what()), "--param n is given twice, n=1024 and n=2048; a configuration has one value of "
                                     "each parameter: give it once");
  }
}

TEST_F(query_history, formats_and_the_plot) {
  history_query q;
  q.variant = "padded";
  q.params = {{"n", "8192"}};
  const auto points = metric_history(*m_db, q);
  std::ostringstream table, json;
  write_history(points, q, table, "table");
  write_history(points, q, json, "json");
  EXPECT_NE(table.str().find("█"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(json.str())["points"].size(), 6U);
}

} // namespace
