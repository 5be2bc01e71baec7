// bankbench export: long CSV and JSON that parse back.
#include <gtest/gtest.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "../data/results/fixtures.hpp"
#include "../data/results/test_helpers.hpp"
#include "cli_runner.hpp"

namespace {

using bb::test::run_cli;
using namespace bb::test::results;

TEST(cli_export, configurations_as_csv) {
  temp_folder tmp;
  build_fixture(tmp.file("f.sqlite"));
  const auto r = run_cli("--db '" + tmp.file("f.sqlite") + "' export 6 --table configurations");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  expect_golden("export_configurations.csv", r.out);
}

TEST(cli_export, every_metric_row_as_json_to_a_file) {
  temp_folder tmp;
  build_fixture(tmp.file("f.sqlite"));
  const std::string file = tmp.file("out/metrics.json");
  const auto r = run_cli("--db '" + tmp.file("f.sqlite") + "' export --format json --out '" + file + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(read_file(file));
  EXPECT_EQ(std::to_string(doc.size()), scalar(tmp.file("f.sqlite"), "SELECT count(*) FROM metrics"));
  EXPECT_NE(r.err.find("wrote " + std::to_string(doc.size()) + " rows to " + file), std::string::npos) << r.err;
  for (const auto& row : doc) {
    ASSERT_TRUE(row["value"].is_number());
    ASSERT_TRUE(row["param_n"].is_number_integer());
  }
}

TEST(cli_export, csv_of_samples_by_commit) {
  temp_folder tmp;
  build_fixture(tmp.file("f.sqlite"));
  const auto r = run_cli("--db '" + tmp.file("f.sqlite") + "' export 3333cccc -t samples");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "run_id,started_at,git_commit,git_dirty,host,gpu_name,gpu_uuid,backend,arch,experiment,seq,variant,"
                  "family,params_json,status,sample_index,gpu_time_ns,param_n");
  int rows = 0;
  while (std::getline(lines, line)) {
    EXPECT_EQ(line.rfind("6,2026-11-03T10:00:00.000Z,", 0), 0U) << line;
    ++rows;
  }
  EXPECT_EQ(rows, 90);
}

} // namespace
