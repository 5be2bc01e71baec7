// bankbench lines: source lines ranked by excess with their text and share, the residual, --top,
// csv and json, and what a run without per-line data says; merge keeps the lines.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "../data/results/fixtures.hpp"
#include "../data/results/lines_fixture.hpp"
#include "../data/results/test_helpers.hpp"
#include "cli_runner.hpp"

namespace {

using bb::test::run_cli;
using namespace bb::test::results;

class cli_lines : public ::testing::Test {
protected:
  void SetUp() override {
    m_source = bb::test::lines::build_lines_fixture(m_tmp.file("lines.sqlite"), m_tmp.path().string());
  }
  bb::test::cli_result lines(const std::string& args, const std::string& db = "lines.sqlite") {
    return run_cli("--db '" + m_tmp.file(db) + "' lines " + args);
  }
  temp_folder m_tmp;
  std::string m_source;
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

bool has_line(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern);
  for (const auto& l : lines_of(text))
    if (std::regex_match(l, re)) return true;
  return false;
}

TEST_F(cli_lines, table_ranks_lines_by_excess_with_source_share_and_residual) {
  const auto r = lines("");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string file = std::regex_replace(m_source, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)");
  EXPECT_TRUE(has_line(r.out, R"(run 2 \(probe\), seq 0: two_way blocks=128 threads=256)")) << r.out;
  EXPECT_TRUE(has_line(r.out, R"(kernel two_way\(float\*, int\): 5 shared-memory instructions on 2 lines, )"
                              R"(excess 5120 wavefronts)"))
      << r.out;
  // Line 21's four loads first, then line 18's store; the text is cut at 60 characters.
  EXPECT_TRUE(has_line(r.out, R"(\s+1\s+)" + file +
                                  R"(:21\s+for \(int k = 0; k < 4; \+\+k\) acc \+= tile\[\(slot\(t\) \+ 64 \* k\.\.\.)"
                                  R"(\s+LDS x4\s+lds\s+4096\s+8192\s+4096\s+4096\s+80\.0%)"))
      << r.out;
  EXPECT_TRUE(has_line(r.out, R"(\s+2\s+)" + file +
                                  R"(:18\s+tile\[slot\(t\)\] = static_cast<float>\(t\);\s+STS\s+sts\s+1024\s+2048)"
                                  R"(\s+1024\s+1024\s+20\.0%)"))
      << r.out;
  EXPECT_TRUE(has_line(r.out, R"(\s+-\s+conflicts no address caused\s+0\s+-)")) << r.out;
  EXPECT_TRUE(has_line(r.out, R"(conflicts no address caused: hardware conflicts 5120 \(op_ld 4096, op_st 1024\) )"
                              R"(minus the lines' excess 5120)"))
      << r.out;
  // hist: no excess anywhere, no share; no counters stored, so no residual row.
  EXPECT_TRUE(has_line(r.out, R"(kernel hist\(unsigned int\*\): 3 shared-memory instructions on 3 lines, excess 0 )"
                              R"(wavefronts)"))
      << r.out;
  EXPECT_TRUE(has_line(r.out, R"(\s+1\s+device_atomic_functions\.hpp:112\s+ATOMS\s+atoms\s+1024\s+1024\s+1024\s+0)"
                              R"(\s+-)"))
      << r.out;
  EXPECT_TRUE(has_line(r.out, R"(\s+2\s+)" + file +
                                  R"(:35\s+if \(t < 32\) counts\[t\] = 0;\s+STS\s+sts\s+0\s+128)"
                                  R"(\s+128\s+0\s+-)"))
      << r.out;
  std::size_t residuals = 0;
  for (auto at = r.out.find("conflicts no address caused"); at != std::string::npos;
       at = r.out.find("conflicts no address caused", at + 1))
    ++residuals;
  EXPECT_EQ(residuals, 2U); // two_way's row and its note, none for hist
  // The configuration built without line info says so.
  EXPECT_TRUE(has_line(r.out, R"(kernel two_way\(float\*, int\): lines not collected \(no_line_info\): the kernel )"
                              R"(carries no line info; compile it with -lineinfo)"))
      << r.out;
}

TEST_F(cli_lines, top_keeps_the_first_lines_and_counts_the_rest) {
  const auto r = lines("--variant two_way --top 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has_line(r.out, R"(\s+1\s+.*probe\.cu:21\s.*80\.0%)")) << r.out;
  EXPECT_FALSE(has_line(r.out, R"(.*probe\.cu:18.*)")) << r.out;
  EXPECT_TRUE(has_line(r.out, "1 more line with excess 1024; --top 0 shows every line")) << r.out;
  // The residual row stays: it is about the whole kernel.
  EXPECT_TRUE(has_line(r.out, R"(\s+-\s+conflicts no address caused\s+0\s+-)")) << r.out;
  // Only the two_way configurations: seq 0, and plain is another variant.
  EXPECT_EQ(r.out.find("hist"), std::string::npos) << r.out;
}

TEST_F(cli_lines, json_holds_every_number_and_csv_a_row_per_line) {
  auto r = lines("-f json -p blocks=128");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  const auto& all = doc.at("configurations");
  ASSERT_EQ(all.size(), 3U);
  const auto& two_way = all[0];
  EXPECT_EQ(two_way.at("kernel"), "two_way(float*, int)");
  EXPECT_EQ(two_way.at("function"), "_Z7two_wayPfi");
  EXPECT_EQ(two_way.at("excess"), 5120);
  EXPECT_EQ(two_way.at("hardware_conflicts").at("op_ld"), 4096);
  EXPECT_EQ(two_way.at("hardware_conflicts").at("total"), 5120);
  EXPECT_EQ(two_way.at("residual"), 0);
  EXPECT_EQ(two_way.at("lines_total"), 2);
  const auto& first = two_way.at("lines")[0];
  EXPECT_EQ(first.at("file"), m_source);
  EXPECT_EQ(first.at("line"), 21);
  EXPECT_EQ(first.at("source"), "for (int k = 0; k < 4; ++k) acc += tile[(slot(t) + 64 * k) % k_words];");
  EXPECT_EQ(first.at("opcodes"), "LDS x4");
  EXPECT_EQ(first.at("wavefronts"), 8192);
  EXPECT_EQ(first.at("ideal"), 4096);
  EXPECT_EQ(first.at("excess"), 4096);
  EXPECT_DOUBLE_EQ(first.at("share").get<double>(), 0.8);
  EXPECT_DOUBLE_EQ(two_way.at("lines")[1].at("share").get<double>(), 0.2);
  EXPECT_TRUE(all[1].at("residual").is_null());
  EXPECT_TRUE(all[1].at("lines")[0].at("share").is_null());
  EXPECT_EQ(all[2].at("status"), "no_line_info");
  EXPECT_EQ(all[2].at("lines").size(), 0U);

  r = lines("-f json --top 1 --variant two_way");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto top = nlohmann::json::parse(r.out).at("configurations");
  ASSERT_EQ(top.size(), 1U);
  EXPECT_EQ(top[0].at("lines").size(), 1U);
  EXPECT_EQ(top[0].at("lines_total"), 2);

  r = lines("-f csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = lines_of(r.out);
  ASSERT_EQ(rows.size(), 8U) << r.out; // header, two_way 2 + residual, hist 3, plain 1
  EXPECT_EQ(rows[0], "run_id,experiment,seq,variant,params_json,kernel,lines_status,row,rank,file,line,source,opcodes,"
                     "kinds,instructions,executions,wavefronts,ideal,excess,share,hardware_conflicts,note");
  EXPECT_EQ(rows[3],
            "2,probe,0,source/two_way,\"{\"\"blocks\"\":128,\"\"threads\"\":256}\",\"two_way(float*, int)\",ok,"
            "residual,,,,,,,,,,,0,,5120,conflicts no address caused");
  EXPECT_NE(rows[1].find(",line,1," + m_source + ",21,"), std::string::npos) << rows[1];
  EXPECT_NE(rows[1].find(",LDS x4,lds,4,4096,8192,4096,4096,0.8,,"), std::string::npos) << rows[1];
  EXPECT_NE(rows[7].find(",no_line_info,none,"), std::string::npos) << rows[7];
}

TEST_F(cli_lines, a_run_without_line_data_says_how_to_collect_it) {
  const auto r = lines("1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("run 1 has no per-line data; collect it with: bankbench run probe/probe.yaml --lines"),
            std::string::npos)
      << r.err;
  const auto none = lines("--variant naive");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("no configuration of latest matches --variant naive"), std::string::npos) << none.err;
}

TEST_F(cli_lines, merged_database_keeps_each_configurations_lines) {
  build_fixture(m_tmp.file("results.sqlite"));
  const std::string all = m_tmp.file("all.sqlite");
  for (const char* source : {"results.sqlite", "lines.sqlite"}) {
    const auto r = run_cli("merge '" + m_tmp.file(source) + "' --into '" + all + "'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  // Six runs came first, so the probe's runs are 7 and 8 and its configurations have new ids.
  EXPECT_EQ(scalar(all, "SELECT count(*) FROM line_collections"), "3");
  EXPECT_EQ(scalar(all, "SELECT count(*) FROM line_counters"), "8");
  const auto before = lines("2 -f json"), after = lines("8 -f json", "all.sqlite");
  ASSERT_EQ(after.exit_code, 0) << after.err;
  auto expected = nlohmann::json::parse(before.out), merged = nlohmann::json::parse(after.out);
  for (auto* doc : {&expected, &merged})
    for (auto& c : doc->at("configurations")) c.erase("run_id");
  EXPECT_EQ(merged, expected);
  // Merging again adds nothing.
  const auto again = run_cli("merge '" + m_tmp.file("lines.sqlite") + "' --into '" + all + "'");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out.find("lines of"), std::string::npos) << again.out;
  EXPECT_EQ(scalar(all, "SELECT count(*) FROM line_counters"), "8");
}

} // namespace
