// The three output formats and the cell helpers.
#include <gtest/gtest.h>

#include <sstream>

#include "common/error.hpp"
#include "query/cells.hpp"
#include "query/table.hpp"

namespace {

using namespace bb::query;

text_table sample() {
  text_table t({{"name", align::left}, {"value", align::right}, {"note", align::left}});
  t.add_row({"a", "1.50", "plain"});
  t.add_row({"µs|x", "-", "needs, \"quotes\""});
  t.add_row({"c"});
  return t;
}

std::string write(const text_table& t, output_format f) {
  std::ostringstream out;
  t.write(out, f);
  return out.str();
}

TEST(query_table, text_pads_by_code_points_and_trims_line_ends) {
  EXPECT_EQ(write(sample(), output_format::table),
            "name  value  note\n"
            "----  -----  ---------------\n"
            "a      1.50  plain\n"
            "µs|x      -  needs, \"quotes\"\n"
            "c\n");
}

TEST(query_table, markdown_escapes_pipes_and_aligns_numbers_right) {
  EXPECT_EQ(write(sample(), output_format::markdown),
            "| name  | value | note            |\n"
            "| ----- | ----: | --------------- |\n"
            "| a     |  1.50 | plain           |\n"
            "| µs\\|x |     - | needs, \"quotes\" |\n"
            "| c     |       |                 |\n");
}

TEST(query_table, csv_quotes_only_where_needed) {
  EXPECT_EQ(write(sample(), output_format::csv),
            "name,value,note\n"
            "a,1.50,plain\n"
            "µs|x,-,\"needs, \"\"quotes\"\"\"\n"
            "c,,\n");
}

TEST(query_table, too_many_cells_is_a_bug) {
  text_table t({{"one", align::left}});
  EXPECT_THROW(t.add_row({"a", "b"}), std::logic_error);
}

TEST(query_table, formats_by_name) {
  EXPECT_EQ(parse_format("table"), output_format::table);
  EXPECT_EQ(parse_format("markdown"), output_format::markdown);
  EXPECT_EQ(parse_format("md"), output_format::markdown);
  EXPECT_EQ(parse_format("csv"), output_format::csv);
  try {
    parse_format("json");
    FAIL() << "no bb::usage_error";
  } catch (const bb::usage_error& e) {
    EXPECT_EQ(std::string(e.what()), "unknown format 'json'; expected table, markdown or csv");
  }
}

TEST(query_cells, params_are_compact_with_keys_sorted) {
  EXPECT_EQ(compact_params(R"({"tile":32,"n":1024,"layout":"row","fast":true,"dims":[2,3]})"),
            "dims=[2,3] fast=true layout=row n=1024 tile=32");
  EXPECT_EQ(compact_params("{}"), "");
  EXPECT_EQ(compact_params("not json"), "not json");
}

TEST(query_cells, variants_lose_their_family) {
  EXPECT_EQ(short_variant("transpose/padded"), "padded");
  EXPECT_EQ(short_variant("plain"), "plain");
}

TEST(query_cells, numbers) {
  EXPECT_EQ(number_cell(12.3449, 2, output_format::table), "12.34");
  EXPECT_EQ(number_cell(std::nullopt, 2, output_format::markdown), "-");
  EXPECT_EQ(number_cell(std::nullopt, 2, output_format::csv), "");
  EXPECT_EQ(number_cell(0.1, 2, output_format::csv), "0.1");
  EXPECT_EQ(shortest(31), "31");
  EXPECT_EQ(display_width("µs"), 2U);
}

} // namespace
