// The four output formats and the cell helpers.
#include <gtest/gtest.h>

#include <sstream>

#include "runner/common/error.hpp"
#include "runner/query/cells.hpp"
#include "runner/query/table.hpp"

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
  EXPECT_EQ(write(sample(), output_format::table), "name  value  note\n"
                                                   "----  -----  ---------------\n"
                                                   "a      1.50  plain\n"
                                                   "µs|x      -  needs, \"quotes\"\n"
                                                   "c\n");
}

TEST(query_table, markdown_escapes_pipes_and_aligns_numbers_right) {
  EXPECT_EQ(write(sample(), output_format::markdown), "| name  | value | note            |\n"
                                                      "| ----- | ----: | --------------- |\n"
                                                      "| a     |  1.50 | plain           |\n"
                                                      "| µs\\|x |     - | needs, \"quotes\" |\n"
                                                      "| c     |       |                 |\n");
}

TEST(query_table, csv_quotes_only_where_needed) {
  EXPECT_EQ(write(sample(), output_format::csv), "name,value,note\n"
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
  EXPECT_EQ(parse_format("json"), output_format::json);
  try {
    parse_format("xml");
    FAIL() << "no bb::usage_error";
  } catch (const bb::usage_error& e) {
    EXPECT_EQ(std::string(e.what()), "unknown format 'xml'; expected table, markdown, csv or json");
  }
}

// A typed table: what a reader sees and what a program reads.
text_table typed() {
  text_table t({{"variant"},
                {"params", align::left, "params_json"},
                {"ld wf/req", align::right, "load_wf"},
                {"n", align::right},
                {"ok"}});
  t.add_row({variant("transpose/padded"), params(R"({"tile":32,"n":1024})"), number(1.0 / 3, 2), count(4096),
             bb::query::cell("yes", true)});
  t.add_row(
      {variant("naive"), params("{}"), number(std::nullopt, 2), count(std::nullopt), bb::query::cell("no", false)});
  return t;
}

TEST(query_table, typed_cells_show_rounded_text_and_keep_every_digit_for_programs) {
  EXPECT_EQ(write(typed(), output_format::table), "variant  params          ld wf/req     n  ok\n"
                                                  "-------  --------------  ---------  ----  ---\n"
                                                  "padded   n=1024 tile=32       0.33  4096  yes\n"
                                                  "naive    -                       -     -  no\n");
  EXPECT_EQ(write(typed(), output_format::csv),
            "variant,params_json,load_wf,n,ok\n"
            "transpose/padded,\"{\"\"n\"\":1024,\"\"tile\"\":32}\",0.3333333333333333,4096,1\n"
            "naive,{},,,0\n");
  const auto j = nlohmann::json::parse(write(typed(), output_format::json));
  ASSERT_EQ(j.size(), 2U);
  EXPECT_EQ(j[0]["variant"], "transpose/padded");
  EXPECT_EQ(j[0]["params_json"]["tile"], 32);
  EXPECT_DOUBLE_EQ(j[0]["load_wf"].get<double>(), 1.0 / 3);
  EXPECT_EQ(j[0]["n"], 4096);
  EXPECT_EQ(j[0]["ok"], true);
  EXPECT_TRUE(j[1]["load_wf"].is_null());
  EXPECT_TRUE(j[1]["n"].is_null());
  EXPECT_EQ(typed().records(), j);
}

TEST(query_table, text_cells_are_strings_in_json_and_missing_cells_null) {
  const auto j = nlohmann::json::parse(write(sample(), output_format::json));
  EXPECT_EQ(j.dump(), R"([{"name":"a","note":"plain","value":"1.50"},)"
                      R"({"name":"µs|x","note":"needs, \"quotes\"","value":"-"},)"
                      R"({"name":"c","note":null,"value":null}])");
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

// A PyTorch kernel as attach stores it: the table shows 60 characters and "...", programs the name.
TEST(query_cells, long_kernel_names_are_cut_for_reading_only) {
  const std::string name = "at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, "
                           "float, float, float>, unsigned int, float, 4, 4>>";
  const bb::query::cell c = variant("attach/" + name);
  EXPECT_EQ(c.text, name.substr(0, 60) + "...");
  EXPECT_EQ(c.value, "attach/" + name);
  EXPECT_EQ(variant("attach/" + name.substr(0, 64)).text, name.substr(0, 64)); // 64 fit
  const std::string wide = std::string(59, 'a') + "\xc2\xb5" + "sec_kernel_with_a_long_tail_of_template_arguments";
  EXPECT_EQ(variant(wide).text, std::string(59, 'a') + "..."); // not cut inside the two bytes of U+00B5
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
