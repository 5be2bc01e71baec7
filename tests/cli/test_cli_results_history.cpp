// bankbench history on a fixture database: a table with bars, and an SVG plot.
#include <gtest/gtest.h>

#include "../data/results/fixtures.hpp"
#include "../data/results/test_helpers.hpp"
#include "cli_runner.hpp"

namespace {

using bb::test::run_cli;
using namespace bb::test::results;

TEST(cli_history, one_configuration_across_runs_and_commits) {
  temp_folder tmp;
  build_fixture(tmp.file("f.sqlite"));
  const std::string svg = tmp.file("plots/padded.svg");
  const auto r = run_cli("--db '" + tmp.file("f.sqlite") +
                         "' history padded --param n=8192 --metric load_conflicts_per_request --svg '" + svg + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  expect_golden("history_padded.txt", r.out);
  const std::string plot = read_file(svg);
  EXPECT_EQ(plot.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0U);
  EXPECT_NE(plot.find("class=\"line\""), std::string::npos);
}

TEST(cli_history, csv_and_mistakes) {
  temp_folder tmp;
  build_fixture(tmp.file("f.sqlite"));
  const std::string db = "--db '" + tmp.file("f.sqlite") + "' ";
  auto r = run_cli(db + "history naive -p n=8192 -m median_ns -g sm_90 -f csv");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  expect_golden("history_naive_time.csv", r.out);
  r = run_cli(db + "history padded");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("3 configurations match"), std::string::npos) << r.err;
  EXPECT_EQ(run_cli(db + "history padded -p n").exit_code, 2);
}

} // namespace
