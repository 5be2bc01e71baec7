// Charts as SVG text: axes, escaping, bars, lines and highlights.
#include <gtest/gtest.h>

#include <regex>

#include "query/svg.hpp"
#include "query/svg_axis.hpp"

namespace {

using namespace bb::query::svg;

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

TEST(query_svg, linear_axes_start_at_zero_for_bars_and_tick_at_round_numbers) {
  const axis a({3.2, 31.5}, 300, 50, false, true);
  EXPECT_EQ(a.lowest(), 0);
  EXPECT_EQ(a.highest(), 40);
  EXPECT_EQ(a.ticks(), (std::vector<double>{0, 10, 20, 30, 40}));
  EXPECT_DOUBLE_EQ(a.to_pixel(0), 300);
  EXPECT_DOUBLE_EQ(a.to_pixel(40), 50);
}

TEST(query_svg, log_axes_span_whole_decades) {
  const axis a({4.8, 728}, 0, 300, true, false);
  EXPECT_EQ(a.lowest(), 1);
  EXPECT_EQ(a.highest(), 1000);
  EXPECT_DOUBLE_EQ(a.to_pixel(10), 100);
  EXPECT_FALSE(a.shows(0));
}

TEST(query_svg, text_is_escaped) {
  EXPECT_EQ(escape("<b>&\"'"), "&lt;b&gt;&amp;&quot;&#39;");
  bar_chart c;
  c.title = "a <script>";
  c.categories = {"n=1024"};
  c.series = {{"x", {1.0}}};
  EXPECT_EQ(render(c).find("<script>"), std::string::npos);
}

TEST(query_svg, bar_chart_draws_one_bar_per_value_and_shades_flags) {
  bar_chart c;
  c.title = "ld wf/req by variant";
  c.categories = {"n=1024", "n=4096"};
  c.series = {{"naive", {32.0, 32.0}}, {"padded", {1.1, std::nullopt}}};
  c.flags = {"", "failed: padded load_conflicts_per_request < 0.2"};
  const std::string svg = render(c);
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0U);
  EXPECT_EQ(count(svg, "class=\"bar\""), 3U);
  EXPECT_EQ(count(svg, "class=\"flag\""), 1U);
  EXPECT_NE(svg.find("padded, n=1024: 1.1"), std::string::npos);
  EXPECT_EQ(svg.substr(svg.size() - 6), "</svg>");
}

TEST(query_svg, line_chart_draws_lines_points_and_the_diagonal) {
  line_chart c;
  c.title = "t";
  c.series = {{"naive", {{1024, 9.5}, {4096, 122.9}, {8192, 485.4}}, {}}, {"padded", {{1024, 4.8}}, {}}};
  c.log_x = c.log_y = true;
  std::string svg = render(c);
  EXPECT_EQ(count(svg, "class=\"line\""), 2U);
  EXPECT_EQ(count(svg, "class=\"point\""), 4U);
  c.diagonal = c.points_only = true;
  svg = render(c);
  EXPECT_EQ(count(svg, "class=\"line\""), 0U);
  EXPECT_EQ(count(svg, "class=\"diagonal\""), 1U);
}

TEST(query_svg, tick_labels_read_naturally) {
  EXPECT_EQ(tick_label(1024), "1024");
  EXPECT_EQ(tick_label(0.125), "0.125");
  EXPECT_EQ(tick_label(2500000), "2.5e+06");
  EXPECT_EQ(tick_label(0), "0");
}

} // namespace
