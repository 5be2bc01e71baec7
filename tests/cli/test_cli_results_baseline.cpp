// bankbench baseline: save, list, export to a file, import elsewhere, and regress against it.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "../data/results/fixtures.hpp"
#include "../data/results/test_helpers.hpp"
#include "cli_runner.hpp"

namespace {

using bb::test::run_cli;
using namespace bb::test::results;

class cli_baseline : public ::testing::Test {
protected:
  void SetUp() override { build_fixture(m_tmp.file("f.sqlite")); }
  bb::test::cli_result on(const std::string& db, const std::string& args) {
    return run_cli("--db '" + m_tmp.file(db) + "' " + args);
  }
  temp_folder m_tmp;
};

TEST_F(cli_baseline, save_list_export_import_and_regress_elsewhere) {
  auto r = on("f.sqlite", "baseline save sm_90 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "saved baseline sm_90: 9 configurations of run 1 (transpose on sm_90)\n");
  r = on("f.sqlite", "baseline list");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  expect_golden("baseline_list.txt", without_clock(r.out));
  r = on("f.sqlite", "baseline list -f json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto listed = nlohmann::json::parse(r.out);
  ASSERT_EQ(listed.size(), 1U);
  EXPECT_EQ(listed[0]["name"], "sm_90");
  EXPECT_EQ(listed[0]["architectures"], "sm_90");
  EXPECT_EQ(listed[0]["configurations"], 9);

  const std::string file = m_tmp.file("results/baselines/sm_90.json");
  r = on("f.sqlite", "baseline export sm_90 --out '" + file + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(read_file(file));
  EXPECT_EQ(doc["bankbench_baseline"], 1);
  EXPECT_EQ(doc["configurations"].size(), 9U);
  EXPECT_EQ(doc["runs"][0]["git_commit"], k_commit_1);
  expect_golden("baseline_sm_90.json", without_clock(read_file(file)));

  // A lab machine with only the candidate: the committed file is the baseline.
  r = on("ci.sqlite", "baseline import '" + file + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "imported baseline sm_90 from " + file + ": 9 configurations\n");
  r = on("f.sqlite", "regress --baseline sm_90 --candidate 6");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("baseline:  baseline sm_90: 9 configurations saved"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("result: 1 regression (exit 1)"), std::string::npos) << r.out;
  EXPECT_EQ(on("f.sqlite", "regress --baseline baseline:sm_90 --candidate 5").exit_code, 0);
}

TEST_F(cli_baseline, a_name_is_taken_once_unless_replaced) {
  ASSERT_EQ(on("f.sqlite", "baseline save main").exit_code, 0);
  auto r = on("f.sqlite", "baseline save main 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("baseline 'main' exists"), std::string::npos) << r.err;
  EXPECT_EQ(on("f.sqlite", "baseline save main 1 --replace").exit_code, 0);
  EXPECT_EQ(on("f.sqlite", "baseline save 12").exit_code, 2); // would read as a run id
  r = on("f.sqlite", "baseline delete main");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(on("f.sqlite", "baseline delete main").exit_code, 2);
}

TEST_F(cli_baseline, a_name_with_a_blank_a_control_byte_or_too_many_bytes_is_refused) {
  auto r = on("f.sqlite", "baseline save 'x y'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "bankbench: error: 'x y' cannot name a baseline: it holds a blank (byte 0x20); use letters, "
                   "digits, '_', '-' or '.', e.g. main or sm_90\n");
  // An escape sequence in a name would drive the terminal of whoever lists the baselines.
  r = on("f.sqlite", "baseline save 'a\x1b[31mred'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "bankbench: error: \"a\\x1b[31mred\" cannot name a baseline: it holds a control byte (byte "
                   "0x1b); use letters, digits, '_', '-' or '.', e.g. main or sm_90\n");
  r = on("f.sqlite", "baseline save " + std::string(101, 'b'));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "bankbench: error: a baseline name of 101 bytes is too long (at most 100); use a short one, e.g. main\n");
  r = on("f.sqlite", "baseline list -f csv");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << r.out; // the header alone: nothing was saved
  EXPECT_EQ(on("f.sqlite", "baseline save " + std::string(100, 'b')).exit_code, 0);
}

TEST_F(cli_baseline, import_refuses_a_device_a_fifo_and_a_folder_before_reading) {
  // /dev/zero was read until memory ran out (exit 5, std::bad_alloc); a FIFO waited for a writer.
  auto r = on("f.sqlite", "baseline import /dev/zero");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "bankbench: error: /dev/zero is a character device, not a baseline file; give the JSON file "
                   "`baseline export` wrote\n");
  const std::string fifo = m_tmp.file("pipe.json");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  r = on("f.sqlite", "baseline import '" + fifo + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "bankbench: error: " + fifo +
                       " is a FIFO, not a baseline file; give the JSON file `baseline "
                       "export` wrote\n");
  r = on("f.sqlite", "baseline import '" + m_tmp.file("missing.json") + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "bankbench: error: cannot read " + m_tmp.file("missing.json") + ": No such file or directory\n");
}

TEST_F(cli_baseline, bad_files_are_refused_and_nothing_is_stored) {
  const std::string bad = m_tmp.file("bad.json");
  std::ofstream(bad) << R"({"bankbench_baseline": 9, "name": "x"})";
  auto r = on("f.sqlite", "baseline import '" + bad + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("written by a newer bankbench (baseline format 9"), std::string::npos) << r.err;
  std::ofstream(bad) << "not json";
  EXPECT_EQ(on("f.sqlite", "baseline import '" + bad + "'").exit_code, 2);
  EXPECT_EQ(scalar(m_tmp.file("f.sqlite"), "SELECT count(*) FROM baselines"), "0");
}

} // namespace
