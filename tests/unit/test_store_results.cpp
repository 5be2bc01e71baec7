// Readers for the results commands: runs with their architecture, configurations summarised over
// launches, baselines, and the long rows of `bankbench export`.
#include <gtest/gtest.h>

#include <string>

#include "../data/results/fixtures.hpp"
#include "../data/results/test_helpers.hpp"
#include "runner/store/baselines.hpp"
#include "runner/store/database.hpp"
#include "runner/store/long_rows.hpp"
#include "runner/store/results.hpp"

namespace {

using namespace bb::test::results;
using namespace bb::store;

class store_results : public ::testing::Test {
protected:
  void SetUp() override {
    build_fixture(m_tmp.file("f.sqlite"));
    m_db.emplace(database::open_existing(m_tmp.file("f.sqlite")));
  }
  temp_folder m_tmp;
  std::optional<database> m_db;
};

TEST(store_architecture, names_measured_and_predicted_architectures) {
  EXPECT_EQ(architecture("cupti", 9, 0), "sm_90");
  EXPECT_EQ(architecture("cupti", 8, 9), "sm_89");
  EXPECT_EQ(architecture("model", 0, 0), "model");
  EXPECT_EQ(architecture("model", 9, 0), "model:sm_90");
}

TEST_F(store_results, runs_come_oldest_first_with_their_architecture) {
  const auto runs = run_infos(*m_db);
  ASSERT_EQ(runs.size(), 6U);
  EXPECT_EQ(runs[0].id, 1);
  EXPECT_EQ(runs[0].arch, "sm_90");
  EXPECT_EQ(runs[2].arch, "sm_89");
  EXPECT_EQ(runs[3].arch, "model");
  EXPECT_EQ(runs[5].git_commit, k_commit_3);
  EXPECT_EQ(runs[5].host, "lab-h200");
}

TEST_F(store_results, configurations_summarise_launches_and_keep_samples_and_failures) {
  const auto rows = read_results(*m_db, {1, 6}, {{"load_conflicts", "load_conflicts_per_request"}, true});
  ASSERT_EQ(rows.size(), 18U);
  const auto& padded = rows[4]; // run 1, padded n=4096
  EXPECT_EQ(padded.variant, "transpose/padded");
  EXPECT_EQ(padded.params_json, "{\"n\":4096}");
  ASSERT_EQ(padded.metrics.size(), 2U);
  const auto& c = padded.metrics.at("load_conflicts");
  EXPECT_EQ(c.launches, 3);
  EXPECT_DOUBLE_EQ(c.min, 61512);
  EXPECT_DOUBLE_EQ(c.max, 62061);
  EXPECT_NEAR(c.mean, (61512.0 + 61625 + 62061) / 3, 1e-9);
  EXPECT_EQ(padded.samples_ns.size(), 10U);
  ASSERT_TRUE(padded.median_ns.has_value());
  const auto& broken = rows[9 + 7]; // run 6, swizzled n=4096
  ASSERT_EQ(broken.failed_expectations.size(), 1U);
  EXPECT_EQ(broken.failed_expectations[0].metric, "load_conflicts_per_request");
  EXPECT_EQ(broken.failed_expectations[0].text, "load_conflicts_per_request < 0.2 (observed 0.5)");
}

TEST_F(store_results, baselines_are_saved_found_replaced_and_deleted) {
  baseline_entry b{"main", "2026-11-05T00:00:00.000Z", "run 1", "transpose", "sm_90", R"({"a":1})"};
  EXPECT_TRUE(save_baseline(*m_db, b, false));
  b.content_json = R"({"a":2})";
  EXPECT_FALSE(save_baseline(*m_db, b, false));
  EXPECT_EQ(find_baseline(*m_db, "main")->content_json, R"({"a":1})");
  EXPECT_TRUE(save_baseline(*m_db, b, true));
  EXPECT_EQ(find_baseline(*m_db, "main")->content_json, R"({"a":2})");
  EXPECT_EQ(list_baselines(*m_db).size(), 1U);
  EXPECT_TRUE(delete_baseline(*m_db, "main"));
  EXPECT_FALSE(delete_baseline(*m_db, "main"));
  EXPECT_FALSE(find_baseline(*m_db, "main").has_value());
}

TEST_F(store_results, long_rows_have_one_cell_per_column) {
  for (const auto table : {long_table::metrics, long_table::samples, long_table::configurations}) {
    const auto columns = long_columns(table);
    std::size_t rows = 0;
    scan_long_rows(*m_db, table, {1}, [&](const std::vector<cell>& cells) {
      EXPECT_EQ(cells.size(), columns.size());
      EXPECT_EQ(std::get<std::string>(cells[8]), "sm_90");
      ++rows;
    });
    const char* sql = table == long_table::metrics ? "SELECT count(*) FROM metrics_long WHERE run_id = 1"
                      : table == long_table::samples
                          ? "SELECT count(*) FROM timing_samples s JOIN configurations c ON c.id = s.configuration_id "
                            "WHERE c.run_id = 1"
                          : "SELECT count(*) FROM configurations WHERE run_id = 1";
    EXPECT_EQ(std::to_string(rows), scalar(m_tmp.file("f.sqlite"), sql));
  }
  EXPECT_EQ(distinct_params(*m_db, {1, 2}).size(), 3U);
}

} // namespace
