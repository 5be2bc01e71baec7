// regress --lines and compare runs A B --lines on an H100 database (tests/data/lines): run 1 is the
// transpose as it is, run 2 pads `padded` by two words (its column read at transpose.cu:38 becomes
// a 2-way conflict), run 3 is run 2 with one line inserted at the top (every line moves down one).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

#include "../data/results/test_helpers.hpp"
#include "cli_runner.hpp"

namespace {

using bb::test::run_cli;
using bb::test::results::temp_folder;

class cli_lines_gate : public ::testing::Test {
protected:
  void SetUp() override {
    std::filesystem::copy_file(BB_SOURCE_DIR "/tests/data/lines/h100-transpose-regression.sqlite", db());
  }
  [[nodiscard]] std::string db() const { return m_tmp.file("gate.sqlite"); }
  bb::test::cli_result bankbench(const std::string& args) { return run_cli("--db '" + db() + "' " + args); }
  temp_folder m_tmp;
};

std::vector<std::string> gate_lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// The lines of `text` from the one that equals `heading` up to the next empty line.
std::vector<std::string> section_of(const std::string& text, const std::string& heading) {
  std::vector<std::string> out;
  bool in = false;
  for (const auto& l : gate_lines_of(text)) {
    if (l == heading) in = true;
    if (!in) continue;
    if (l.empty()) break;
    out.push_back(l);
  }
  return out;
}

const std::string k_compared = "compared:  6 configurations with per-line data on both sides (2 without), 12 source "
                               "lines on both sides, 0 on one side only";

TEST_F(cli_lines_gate, padding_by_two_flags_padded_line_38_at_both_sizes_and_nothing_else) {
  const auto r = bankbench("regress -b 1 -c 2 --lines");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto lines = gate_lines_of(r.out);
  EXPECT_NE(std::find(lines.begin(), lines.end(), k_compared), lines.end()) << r.out;
  const std::vector<std::string> expected = {
      "line regressions (2)",
      "experiment        variant  params                       line             source  opcodes       excess  "
      "per execution  threshold",
      "----------------  -------  ---------------------------  ---------------  ------  -------  -----------  "
      "-------------  ---------",
      "source_transpose  padded   block_rows=8 n=1024 tile=32  transpose.cu:38  -       LDS x4    0 -> 32768  "
      "       0 -> 1      ±0.05",
      "source_transpose  padded   block_rows=8 n=4096 tile=32  transpose.cu:38  -       LDS x4   0 -> 524288  "
      "       0 -> 1      ±0.05"};
  EXPECT_EQ(section_of(r.out, "line regressions (2)"), expected) << r.out;
  EXPECT_NE(r.out.find("line improvements (0): none\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("moved lines, compared where they went (0): none\n"), std::string::npos) << r.out;
  EXPECT_EQ(lines.back(), "result: 2 line regressions (exit 1)");
}

TEST_F(cli_lines_gate, a_line_inserted_above_moves_every_line_and_flags_nothing) {
  const auto r = bankbench("regress -b 2 -c 3 --lines");
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto lines = gate_lines_of(r.out);
  EXPECT_NE(std::find(lines.begin(), lines.end(), k_compared), lines.end()) << r.out;
  EXPECT_NE(r.out.find("line regressions (0): none\n"), std::string::npos) << r.out;
  const auto moved = section_of(r.out, "moved lines, compared where they went (6)");
  ASSERT_EQ(moved.size(), 9U) << r.out;
  EXPECT_EQ(moved[5], "source_transpose  padded    block_rows=8 n=1024 tile=32  transpose.cu  void transpose<padded, "
                      "32, 8>(float const*, float*, int)    lines moved (+1)");
  for (std::size_t i = 3; i < moved.size(); ++i) EXPECT_TRUE(moved[i].ends_with("  lines moved (+1)")) << moved[i];
  EXPECT_NE(r.out.find("lines on one side only, not judged (0): none\n"), std::string::npos) << r.out;
  EXPECT_EQ(lines.back(), "result: no line regression (exit 0)");
}

TEST_F(cli_lines_gate, a_regression_across_a_move_is_named_at_both_lines) {
  const auto r = bankbench("regress -b 1 -c 3 --lines -f json");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc.at("regressions"), 2);
  EXPECT_EQ(doc.at("exit_code"), 1);
  EXPECT_EQ(doc.at("lines_compared"), 12);
  EXPECT_EQ(doc.at("moves").size(), 6U);
  EXPECT_EQ(doc.at("moves")[0].at("offset"), 1);
  EXPECT_EQ(doc.at("moves")[0].at("lines"), nlohmann::json::parse("[[30, 31], [38, 39]]"));
  int regressions = 0;
  for (const auto& l : doc.at("lines")) {
    if (l.at("outcome") != "regression") continue;
    ++regressions;
    EXPECT_EQ(l.at("variant"), "source/padded");
    EXPECT_EQ(l.at("baseline_line"), 38);
    EXPECT_EQ(l.at("candidate_line"), 39);
    EXPECT_EQ(l.at("baseline_excess"), 0);
    EXPECT_EQ(l.at("candidate_excess_per_execution"), 1.0);
  }
  EXPECT_EQ(regressions, 2);
}

TEST_F(cli_lines_gate, a_run_against_itself_flags_nothing) {
  const auto r = bankbench("regress -b 1 -c 1 --lines");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("line regressions (0): none\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("moved lines, compared where they went (0): none\n"), std::string::npos) << r.out;
  EXPECT_EQ(gate_lines_of(r.out).back(), "result: no line regression (exit 0)");
}

TEST_F(cli_lines_gate, a_side_without_line_data_says_how_to_collect_it) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db().c_str(), &h), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(h,
                         "DELETE FROM line_counters WHERE configuration_id IN (SELECT id FROM configurations WHERE "
                         "run_id = 2); DELETE FROM line_collections WHERE configuration_id IN (SELECT id FROM "
                         "configurations WHERE run_id = 2);",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(h);
  const std::string message = "bankbench: error: run 2 has no per-line data; collect it with: bankbench run "
                              "/tmp/tmp.6Nnfib8Wya/transpose.yaml --lines\n";
  for (const std::string args :
       {"regress -b 1 -c 2 --lines", "regress -b 2 -c 1 --lines", "compare runs 2 1 --lines"}) {
    const auto r = bankbench(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(r.err, message) << args;
    EXPECT_EQ(r.out, "") << args;
  }
}

TEST_F(cli_lines_gate, compare_puts_each_lines_excess_side_by_side) {
  auto r = bankbench("compare runs 1 3 --lines");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto padded = section_of(
      r.out, "source_transpose padded block_rows=8 n=4096 tile=32 (run 1 -> run 3): transpose.cu lines moved (+1)");
  const std::vector<std::string> expected = {
      "source_transpose padded block_rows=8 n=4096 tile=32 (run 1 -> run 3): transpose.cu lines moved (+1)",
      "line                   source  opcodes  excess A  excess B  per execution A  per execution B",
      "---------------------  ------  -------  --------  --------  ---------------  ---------------",
      "transpose.cu:30 -> 31  -       STS x4          0         0                0                0",
      "transpose.cu:38 -> 39  -       LDS x4          0    524288                0                1"};
  EXPECT_EQ(padded, expected) << r.out;
  EXPECT_NE(r.out.find("2 configurations in common without per-line data on both sides\n"), std::string::npos);

  r = bankbench("compare runs 1 2 --lines -f csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = gate_lines_of(r.out);
  ASSERT_EQ(rows.size(), 13U) << r.out; // header and 2 lines of 6 configurations
  EXPECT_EQ(rows[0], "experiment,variant,params,arch,baseline_run,candidate_run,file,function,baseline_line,"
                     "candidate_line,source,opcodes,baseline_executions,candidate_executions,baseline_excess,"
                     "candidate_excess,baseline_excess_per_execution,candidate_excess_per_execution");
  EXPECT_EQ(rows[6], "source_transpose,source/padded,\"{\"\"block_rows\"\":8,\"\"n\"\":1024,\"\"tile\"\":32}\","
                     "sm_90,1,2,transpose.cu,\"void transpose<padded, 32, 8>(float const*, float*, int)\",38,38,,"
                     "LDS x4,32768,32768,0,32768,0,1");

  r = bankbench("compare variants 1 --lines");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--lines compares two sides: `bankbench compare runs A B --lines`"), std::string::npos) << r.err;
}

} // namespace
