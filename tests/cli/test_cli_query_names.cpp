// Names a query command takes are checked against the database: a metric no run holds is a usage
// error with a did-you-mean (not a table of "-" and exit 0), a run named twice is exported once,
// and a baseline file with a format below 1 or one configuration given twice with other values is
// not imported.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "../data/results/fixtures.hpp"
#include "../data/results/test_helpers.hpp"
#include "cli_db.hpp"

namespace {

using bb::test::run_cli;
using namespace bb::test::results;

class cli_query_names : public ::testing::Test {
protected:
  void SetUp() override { build_fixture(m_tmp.file("f.sqlite")); }
  bb::test::cli_result bankbench(const std::string& args) { return run_cli("--db '" + db() + "' " + args); }
  std::string db() { return m_tmp.file("f.sqlite"); }
  temp_folder m_tmp;
};

TEST_F(cli_query_names, compare_and_history_of_an_unknown_metric_are_usage_errors) {
  const std::string typo = "-m load_wavefront_per_request: no run in " + db() +
                           " holds a metric of this name; did you mean 'load_wavefronts_per_request'?\n";
  for (const auto& args : {std::string("compare variants 1 -m load_wavefront_per_request"),
                           std::string("compare runs 1 6 -m median_ns,load_wavefront_per_request"),
                           std::string("compare gpus transpose -m load_wavefront_per_request"),
                           std::string("history padded -p n=1024 -m load_wavefront_per_request")}) {
    const auto r = bankbench(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(r.err, "bankbench: error: " + typo) << args;
    EXPECT_EQ(r.out, "") << args;
  }
  const auto none = bankbench("compare variants 1 -m nosuch");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_EQ(none.err, "bankbench: error: -m nosuch: no run in " + db() +
                          " holds a metric of this name; `bankbench list metrics` lists the derived metrics\n");
  const auto timing = bankbench("compare variants 1 -m median_ns");
  EXPECT_EQ(timing.exit_code, 0) << timing.err;
}

TEST_F(cli_query_names, export_of_a_run_named_twice_writes_its_rows_once) {
  const auto once = bankbench("export 1");
  const auto twice = bankbench("export 1 1 latest 1");
  ASSERT_EQ(once.exit_code, 0) << once.err;
  ASSERT_EQ(twice.exit_code, 0) << twice.err;
  const auto latest = bankbench("export latest");
  ASSERT_EQ(latest.exit_code, 0) << latest.err;
  // Run 1's rows, then the latest run's, each once.
  EXPECT_EQ(twice.out, once.out + latest.out.substr(latest.out.find('\n') + 1));
  EXPECT_GT(std::count(once.out.begin(), once.out.end(), '\n'), 2);
}

TEST_F(cli_query_names, a_baseline_with_a_bad_format_or_a_conflicting_duplicate_is_not_imported) {
  const auto exported = bankbench("baseline save main 1");
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const auto text = bankbench("baseline export main");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  auto doc = nlohmann::json::parse(text.out);
  const auto import_as = [&](const nlohmann::json& d, const std::string& file) {
    std::ofstream(m_tmp.file(file)) << d.dump(1);
    return bankbench("baseline import '" + m_tmp.file(file) + "' --name copy");
  };
  auto negative = doc;
  negative["bankbench_baseline"] = -1;
  const auto r1 = import_as(negative, "neg.json");
  EXPECT_EQ(r1.exit_code, 2);
  EXPECT_EQ(r1.err, "bankbench: error: " + m_tmp.file("neg.json") +
                        ": not a bankbench baseline: \"bankbench_baseline\" is -1; formats start at 1\n");
  auto twice = doc;
  auto copy = twice["configurations"][0];
  copy["metrics"].begin().value()["mean"] = 1e6;
  twice["configurations"].push_back(copy);
  const auto last = twice["configurations"].size() - 1;
  const auto r2 = import_as(twice, "twice.json");
  EXPECT_EQ(r2.exit_code, 2);
  EXPECT_NE(r2.err.find(": not a bankbench baseline: configurations[0] and configurations[" + std::to_string(last) +
                        "] are the same configuration ("),
            std::string::npos)
      << r2.err;
  EXPECT_EQ(bb::test::query_text(db(), "SELECT count(*) FROM baselines WHERE name = 'copy'"), "0");
  const auto good = import_as(doc, "good.json");
  EXPECT_EQ(good.exit_code, 0) << good.err;
  EXPECT_EQ(bb::test::query_text(db(), "SELECT count(*) FROM baselines WHERE name = 'copy'"), "1");
}

} // namespace
