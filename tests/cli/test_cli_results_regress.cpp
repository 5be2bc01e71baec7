// bankbench regress on fixture databases: a planted regression exits 1, noise alone exits 0.
#include <gtest/gtest.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "../data/results/fixtures.hpp"
#include "../data/results/test_helpers.hpp"
#include "cli_runner.hpp"

namespace {

using bb::test::run_cli;
using namespace bb::test::results;

class cli_regress : public ::testing::Test {
protected:
  void SetUp() override {
    build_fixture(m_tmp.file("planted.sqlite"));
    fixture_options noise_only;
    noise_only.planted_regression = false;
    build_fixture(m_tmp.file("noise.sqlite"), noise_only);
  }
  bb::test::cli_result regress(const std::string& db, const std::string& args) {
    return run_cli("--db '" + m_tmp.file(db) + "' regress " + args);
  }
  temp_folder m_tmp;
};

TEST_F(cli_regress, noise_only_exits_0) {
  // Run 5 moved padded n=4096 conflicts by 0.65 %: above the 0.5 % floor, within the launches' spread.
  const auto r = regress("noise.sqlite", "--baseline 1 --candidate latest");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  expect_golden("regress_noise_only.txt", r.out);
}

TEST_F(cli_regress, planted_regression_exits_1) {
  const auto r = regress("planted.sqlite", "--baseline 1 --candidate 6");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  expect_golden("regress_planted.txt", r.out);
}

TEST_F(cli_regress, latest_against_the_run_before_it_in_markdown) {
  const auto r = regress("planted.sqlite", "--baseline latest --format markdown");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  expect_golden("regress_planted.md", r.out);
}

TEST_F(cli_regress, json_lists_every_finding) {
  const auto r = regress("planted.sqlite", "-b 1 -c 6 -f json");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["regressions"], 1); // swizzled n=4096; padded n=8192 moved by noise-sized 0.022 wf/req
  EXPECT_EQ(doc["exit_code"], 1);
  EXPECT_EQ(doc["compared"], 9);
  int gated = 0;
  for (const auto& f : doc["findings"]) gated += f["gated"].get<bool>() ? 1 : 0;
  EXPECT_EQ(gated, 1);
}

TEST_F(cli_regress, csv_is_json_findings_one_row_each) {
  const auto json = nlohmann::json::parse(regress("planted.sqlite", "-b 1 -c 6 -f json").out);
  const auto r = regress("planted.sqlite", "-b 1 -c 6 -f csv");
  EXPECT_EQ(r.exit_code, 1) << r.err; // the verdict is the exit code, as with every format
  std::istringstream lines(r.out);
  std::string header, line;
  std::getline(lines, header);
  EXPECT_EQ(header, "experiment,variant,params,metric,baseline_arch,candidate_arch,baseline,candidate,change,"
                    "allowance,p,outcome,gated,cross_arch,baseline_status,candidate_status");
  std::size_t rows = 0, gated = 0;
  while (std::getline(lines, line)) {
    ++rows;
    // gated and cross_arch are 1 or 0, the two status columns empty for a counter
    if (line.find(",1,0,,") != std::string::npos) ++gated;
  }
  EXPECT_EQ(rows, json["findings"].size());
  EXPECT_EQ(gated, 1U) << r.out;
}

TEST_F(cli_regress, times_gate_only_when_asked) {
  // Requests are never judged, so only naive n=8192's 50 % slower time is left.
  EXPECT_EQ(regress("planted.sqlite", "-b 1 -c 6 --metric load_requests").exit_code, 0);
  const auto gated = regress("planted.sqlite", "-b 1 -c 6 --metric load_requests --gate-time");
  EXPECT_EQ(gated.exit_code, 1) << gated.err;
  EXPECT_NE(gated.out.find("median us (time)"), std::string::npos) << gated.out;
}

TEST_F(cli_regress, other_architectures_are_reported_not_gated) {
  for (const char* candidate : {"3", "4"}) { // the RTX 4090 (sm_89), the bank model
    const auto r = regress("planted.sqlite", std::string("-b 1 -c ") + candidate);
    EXPECT_EQ(r.exit_code, 0) << candidate << r.err;
    EXPECT_NE(r.out.find("across architectures ("), std::string::npos);
    EXPECT_NE(r.out.find("0 configurations on the same architecture, 9 across"), std::string::npos);
  }
  expect_golden("regress_across_architectures.txt", regress("planted.sqlite", "-b 1 -c 3").out);
}

TEST_F(cli_regress, a_commit_is_the_newest_run_of_each_gpu_at_it) {
  const auto r = regress("planted.sqlite", "--baseline 1111aaaa --candidate commit:3333cccc");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("candidate: run 6:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("baseline:  commit 1111aaaa1111: 3 runs of transpose"), std::string::npos) << r.out;
}

TEST_F(cli_regress, usage_and_data_errors_exit_2) {
  auto r = regress("planted.sqlite", "--baseline 42");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no run 42 in"), std::string::npos) << r.err;
  r = regress("planted.sqlite", "--baseline nightly");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no run, session, baseline, experiment or commit 'nightly'"), std::string::npos) << r.err;
  r = regress("planted.sqlite", "--candidate 1");
  EXPECT_EQ(r.exit_code, 2); // --baseline is required
  // Nothing in common: a database with another experiment's run.
  exec(m_tmp.file("planted.sqlite"), "UPDATE runs SET experiment_name = 'reduce' WHERE id = 2; "
                                     "UPDATE configurations SET variant = 'reduce/tree' WHERE run_id = 2");
  r = regress("planted.sqlite", "-b 2 -c 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("have no configuration in common"), std::string::npos) << r.err;
  r = run_cli("--db '" + m_tmp.file("none.sqlite") + "' regress -b 1");
  EXPECT_EQ(r.exit_code, 4);
}

} // namespace
