// Charts as SVG text: axes, escaping, bars, lines and highlights.
#include <gtest/gtest.h>

#include <regex>

#include "occurrences.hpp"
#include "runner/render/svg.hpp"
#include "runner/render/svg_axis.hpp"

namespace {

using namespace bb::render::svg;

using bb::test::occurrences;

TEST(render_svg, linear_axes_start_at_zero_for_bars_and_tick_at_round_numbers) {
  const axis a({3.2, 31.5}, 300, 50, false, true);
  EXPECT_EQ(a.lowest(), 0);
  EXPECT_EQ(a.highest(), 40);
  EXPECT_EQ(a.ticks(), (std::vector<double>{0, 10, 20, 30, 40}));
  EXPECT_DOUBLE_EQ(a.to_pixel(0), 300);
  EXPECT_DOUBLE_EQ(a.to_pixel(40), 50);
}

TEST(render_svg, log_axes_span_whole_decades) {
  const axis a({4.8, 728}, 0, 300, true, false);
  EXPECT_EQ(a.lowest(), 1);
  EXPECT_EQ(a.highest(), 1000);
  EXPECT_DOUBLE_EQ(a.to_pixel(10), 100);
  EXPECT_FALSE(a.shows(0));
}

TEST(render_svg, text_is_escaped) {
  EXPECT_EQ(escape("<b>&\"'"), "&lt;b&gt;&amp;&quot;&#39;");
  bar_chart c;
  c.title = "a <script>";
  c.categories = {"n=1024"};
  c.series = {{"x", {1.0}}};
  EXPECT_EQ(render(c).find("<script>"), std::string::npos);
}

TEST(render_svg, bar_chart_draws_one_bar_per_value_and_shades_flags) {
  bar_chart c;
  c.title = "ld wf/req by variant";
  c.categories = {"n=1024", "n=4096"};
  c.series = {{"naive", {32.0, 32.0}}, {"padded", {1.1, std::nullopt}}};
  c.flags = {"", "failed: padded load_conflicts_per_request < 0.2"};
  const std::string svg = render(c);
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0U);
  EXPECT_EQ(occurrences(svg, "class=\"bar\""), 3U);
  EXPECT_EQ(occurrences(svg, "class=\"flag\""), 1U);
  EXPECT_NE(svg.find("padded, n=1024: 1.1"), std::string::npos);
  EXPECT_EQ(svg.substr(svg.size() - 6), "</svg>");
}

TEST(render_svg, line_chart_draws_lines_points_and_the_diagonal) {
  line_chart c;
  c.title = "t";
  c.series = {{"naive", {{1024, 9.5}, {4096, 122.9}, {8192, 485.4}}, {}}, {"padded", {{1024, 4.8}}, {}}};
  c.log_x = c.log_y = true;
  std::string svg = render(c);
  EXPECT_EQ(occurrences(svg, "class=\"line\""), 2U);
  EXPECT_EQ(occurrences(svg, "class=\"point\""), 4U);
  c.diagonal = c.points_only = true;
  svg = render(c);
  EXPECT_EQ(occurrences(svg, "class=\"line\""), 0U);
  EXPECT_EQ(occurrences(svg, "class=\"diagonal\""), 1U);
}

TEST(render_svg, tick_labels_read_naturally) {
  EXPECT_EQ(tick_label(1024), "1024");
  EXPECT_EQ(tick_label(0.125), "0.125");
  EXPECT_EQ(tick_label(2500000), "2.5e+06");
  EXPECT_EQ(tick_label(0), "0");
}

TEST(render_svg, a_zero_bar_is_labelled_and_an_all_zero_chart_says_so) {
  bar_chart c;
  c.title = "st conflicts/req by variant";
  c.categories = {"n=1024", "n=4096"};
  c.series = {{"naive", {2.0, 0.0}, {}}, {"padded", {0.0, 0.0}, {}}};
  std::string svg = render(c);
  EXPECT_EQ(occurrences(svg, "class=\"zero\""), 3U);
  EXPECT_EQ(svg.find("every value is 0"), std::string::npos);
  c.series[0].values = {0.0, 0.0};
  svg = render(c);
  EXPECT_NE(svg.find(">every value is 0</text>"), std::string::npos);
  EXPECT_EQ(occurrences(svg, "class=\"zero\""), 0U) << "the chart says it once, not under every bar";
}

TEST(render_svg, a_missing_value_is_marked_with_why) {
  bar_chart c;
  c.title = "t";
  c.categories = {"bytes=1024"};
  c.series = {{"copy", {1.0}, {""}}, {"memcpy", {std::nullopt}, {"not modelled (no access plan)"}}};
  const std::string svg = render(c);
  EXPECT_EQ(occurrences(svg, "class=\"missing\""), 1U);
  EXPECT_NE(svg.find("<title>memcpy, bytes=1024: not modelled (no access plan)</title>"), std::string::npos) << svg;
}

TEST(render_svg, long_category_labels_stand_upright_with_room_below_and_are_cut_with_their_whole_text_kept) {
  bar_chart c;
  c.title = "t";
  const std::string longest = "block_rows=16 tile=64 type=double and a great deal more text than fits anywhere";
  c.categories = {"block_rows=8 tile=16 type=float", longest};
  c.series = {{"naive", {1.0, 2.0}, {}}};
  const std::string svg = render(c, 640, 320);
  EXPECT_EQ(occurrences(svg, "rotate(-90)"), 3U); // two labels and the y axis label
  // shown cut, with the whole text in its <title>
  EXPECT_NE(svg.find("...<title>" + longest + "</title></text>"), std::string::npos) << svg;
  // the svg grew below the plot by what the upright labels need
  const auto h = svg.find("height=\"");
  EXPECT_GT(std::stoi(svg.substr(h + 8)), 320 + 100);
}

TEST(render_svg, fit_cuts_text_to_a_width) {
  EXPECT_EQ(fit("n=1024", 200), "n=1024");
  const std::string cut = fit("block_rows=8 tile=32 type=float n=1024", 60);
  EXPECT_EQ(cut.substr(cut.size() - 3), "...");
  EXPECT_LE(text_width(cut), 60);
  EXPECT_GT(text_width("WWWW"), text_width("iiii"));
}

TEST(render_svg, heat_map_labels_every_cell_and_marks_the_empty_ones) {
  heat_map m;
  m.title = "strided: ld wf/req by stride and width";
  m.x_label = "stride";
  m.y_label = "width";
  m.value_label = "ld wf/req";
  m.x_categories = {"1", "2", "32"};
  m.y_categories = {"1", "4"};
  m.values = {{1.0, 2.0, 32.0}, {0.0, std::nullopt, 32.0}};
  m.missing = {{"", "", ""}, {"", "failed", ""}};
  const std::string svg = render(m);
  EXPECT_NE(svg.find("class=\"chart heat-map\""), std::string::npos);
  EXPECT_EQ(occurrences(svg, "class=\"cell\""), 5U);
  EXPECT_EQ(occurrences(svg, "class=\"cell empty\""), 1U);
  EXPECT_EQ(occurrences(svg, "class=\"value\""), 5U);
  EXPECT_NE(svg.find(">0</text>"), std::string::npos) << "a zero is written, not left blank";
  EXPECT_NE(svg.find("<title>width 4, stride 2: failed</title>"), std::string::npos);
  EXPECT_NE(svg.find("ld wf/req: 0 (lightest) to 32 (darkest)"), std::string::npos);
  EXPECT_NE(svg.find("fill=\"#214b8c\""), std::string::npos) << "the largest value is the darkest";
}

// Narrow cells still show their number (smaller), and one value everywhere is said as such, not
// "1 (lightest) to 1 (darkest)".
TEST(render_svg, heat_map_numbers_every_narrow_cell_and_says_when_all_values_are_equal) {
  heat_map m;
  m.title = "t";
  m.x_label = "x";
  m.y_label = "y";
  m.value_label = "ld wf/req";
  for (int i = 0; i < 64; ++i) m.x_categories.push_back(std::to_string(i));
  m.y_categories = {"w"};
  m.values = {std::vector<std::optional<double>>(64, 1.0)};
  const std::string svg = render(m, 600, 300);
  EXPECT_EQ(occurrences(svg, "class=\"cell\""), 64U);
  EXPECT_EQ(occurrences(svg, "class=\"value\""), 64U);
  EXPECT_EQ(occurrences(svg, ">1</text>"), 64U);
  EXPECT_NE(svg.find("ld wf/req: all 1<"), std::string::npos);
  EXPECT_EQ(svg.find("(lightest)"), std::string::npos);
}

} // namespace
