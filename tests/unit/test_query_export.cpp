// export: long CSV and JSON that parse back, one parameter per column.
#include <gtest/gtest.h>

#include <algorithm>

#include <sstream>

#include <nlohmann/json.hpp>

#include "../data/results/fixtures.hpp"
#include "../data/results/lines_fixture.hpp"
#include "../data/results/test_helpers.hpp"
#include "runner/query/export.hpp"

namespace {

using namespace bb::query;
using namespace bb::test::results;

// Splits one RFC 4180 line into its fields.
std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      out.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

class query_export : public ::testing::Test {
protected:
  void SetUp() override {
    build_fixture(m_tmp.file("f.sqlite"));
    m_db.emplace(bb::store::database::open_existing(m_tmp.file("f.sqlite")));
  }
  temp_folder m_tmp;
  std::optional<bb::store::database> m_db;
};

TEST_F(query_export, csv_rows_have_as_many_fields_as_the_header) {
  for (const char* table : {"metrics", "samples", "configurations"}) {
    std::ostringstream out;
    const auto n = write_export(*m_db, {1, 6}, parse_long_table(table), bb::query::output_format::csv, out);
    std::istringstream lines(out.str());
    std::string line;
    std::getline(lines, line);
    const auto header = fields(line);
    EXPECT_EQ(header.back(), "param_n") << table;
    std::size_t rows = 0;
    while (std::getline(lines, line)) {
      EXPECT_EQ(fields(line).size(), header.size()) << table << ": " << line;
      ++rows;
    }
    EXPECT_EQ(rows, n) << table;
    EXPECT_GT(rows, 0U) << table;
  }
}

TEST_F(query_export, json_records_parse_back_with_numbers_as_numbers) {
  std::ostringstream out;
  const auto n = write_export(*m_db, {}, bb::store::long_table::samples, bb::query::output_format::json, out);
  const auto doc = nlohmann::json::parse(out.str());
  ASSERT_TRUE(doc.is_array());
  EXPECT_EQ(doc.size(), n);
  EXPECT_EQ(n, 5U * 9 * 10); // five timed runs (the model has no samples), 9 configurations, 10 samples
  const auto& first = doc.front();
  EXPECT_EQ(first["run_id"], 1);
  EXPECT_EQ(first["arch"], "sm_90");
  EXPECT_EQ(first["param_n"], 1024);
  EXPECT_TRUE(first["gpu_time_ns"].is_number_float());
  const auto ordered = nlohmann::ordered_json::parse(out.str());
  EXPECT_EQ(ordered.front().begin().key(), "run_id"); // columns keep their order
}

TEST_F(query_export, a_table_for_reading_holds_the_same_rows_as_csv) {
  std::ostringstream csv, table, markdown;
  const auto n = write_export(*m_db, {1}, bb::store::long_table::configurations, bb::query::output_format::csv, csv);
  EXPECT_EQ(write_export(*m_db, {1}, bb::store::long_table::configurations, bb::query::output_format::table, table), n);
  EXPECT_EQ(
      write_export(*m_db, {1}, bb::store::long_table::configurations, bb::query::output_format::markdown, markdown), n);
  auto lines = [](const std::string& text) {
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  };
  EXPECT_EQ(lines(csv.str()), n + 1);      // header
  EXPECT_EQ(lines(table.str()), n + 2);    // header and rule
  EXPECT_EQ(lines(markdown.str()), n + 2); // header and alignment row
  EXPECT_EQ(table.str().rfind("run_id", 0), 0U) << table.str();
  EXPECT_NE(markdown.str().find("| param_n |"), std::string::npos) << markdown.str();
}

TEST_F(query_export, an_empty_selection_is_an_empty_array) {
  std::ostringstream out;
  EXPECT_EQ(write_export(*m_db, {99}, bb::store::long_table::metrics, bb::query::output_format::json, out), 0U);
  EXPECT_EQ(nlohmann::json::parse(out.str()), nlohmann::json::array());
}

} // namespace

namespace {

TEST(query_export_lines, one_record_per_instruction_and_one_for_a_collection_without_any) {
  bb::test::results::temp_folder tmp;
  const std::string source = bb::test::lines::build_lines_fixture(tmp.file("lines.sqlite"), tmp.path().string());
  const auto db = bb::store::database::open_for_query(tmp.file("lines.sqlite"));
  std::ostringstream out;
  // Run 1 has no lines; run 2 has 5 + 3 instructions and one collection without any.
  EXPECT_EQ(write_export(db, {}, parse_long_table("lines"), output_format::json, out), 9U);
  const auto rows = nlohmann::json::parse(out.str());
  ASSERT_EQ(rows.size(), 9U);
  const auto& sts = rows[0];
  EXPECT_EQ(sts.at("run_id"), 2);
  EXPECT_EQ(sts.at("seq"), 0);
  EXPECT_EQ(sts.at("variant"), "source/two_way");
  EXPECT_EQ(sts.at("lines_status"), "ok");
  EXPECT_EQ(sts.at("kernel"), "_Z7two_wayPfi");
  EXPECT_EQ(sts.at("pc"), 0x180);
  EXPECT_EQ(sts.at("file"), source);
  EXPECT_EQ(sts.at("line"), 18);
  EXPECT_EQ(sts.at("opcode"), "STS");
  EXPECT_EQ(sts.at("executions"), 1024);
  EXPECT_EQ(sts.at("threads"), 32768);
  EXPECT_EQ(sts.at("wavefronts"), 2048);
  EXPECT_EQ(sts.at("ideal"), 1024);
  EXPECT_EQ(sts.at("excess"), 1024);
  EXPECT_EQ(sts.at("param_blocks"), 128);
  EXPECT_EQ(rows[6].at("file"), "device_atomic_functions.hpp");
  EXPECT_EQ(rows[6].at("excess"), 0);
  const auto& none = rows[8];
  EXPECT_EQ(none.at("seq"), 2);
  EXPECT_EQ(none.at("lines_status"), "no_line_info");
  EXPECT_EQ(none.at("lines_note"), "the kernel carries no line info; compile it with -lineinfo");
  EXPECT_TRUE(none.at("pc").is_null());
  EXPECT_TRUE(none.at("excess").is_null());
}

} // namespace
