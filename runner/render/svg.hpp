#pragma once
/// Charts as inline SVG text, for the HTML report and `history --svg`: no script, no external
/// file, so they render anywhere, offline, and each value carries a <title> shown on hover.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bb::render::svg {

/// Text made safe inside XML or HTML elements and attributes.
std::string escape(std::string_view text);

struct bar_series {
  std::string name;
  std::vector<std::optional<double>> values; ///< one per category; empty: no bar
  std::vector<std::string> missing;          ///< per category: why there is no value ("failed"), or ""
};

/// Grouped bars: one group per category, one bar per series.
struct bar_chart {
  std::string title, y_label;
  std::vector<std::string> categories;
  std::vector<bar_series> series;
  std::vector<std::string> flags; ///< per category: why it is highlighted (a failed expectation), or ""
  bool log_y = false;
};

struct line_series {
  std::string name;
  std::vector<std::pair<double, double>> points; ///< (x, y), drawn in x order
  std::vector<std::string> notes;                ///< per point, added to its <title>; may be empty
};

/// Lines (or points alone) over numeric axes.
struct line_chart {
  std::string title, x_label, y_label;
  std::vector<line_series> series;
  bool log_x = false, log_y = false;
  bool y_from_zero = false;               ///< a linear y axis that starts at 0 (counts and ratios)
  bool points_only = false;               ///< a scatter plot
  bool diagonal = false;                  ///< draw y = x, for predicted against measured
  std::vector<std::string> x_tick_labels; ///< when given, one per distinct x in order (e.g. commits)
  struct flag {
    double x, y;
    std::string why; ///< "failed: naive load_conflicts_per_request < 0.2"
  };
  std::vector<flag> flags; ///< points ringed in red: a failed expectation
};

/// A value over two parameters: one cell per (x, y) pair, coloured by value and labelled with it.
struct heat_map {
  std::string title, x_label, y_label, value_label;
  std::vector<std::string> x_categories, y_categories;
  std::vector<std::vector<std::optional<double>>> values; ///< [y][x]; empty: no value
  std::vector<std::vector<std::string>> missing;          ///< [y][x]: why there is no value, or ""
};

/// A complete <svg> element, `width` CSS pixels wide and `height` high (a bar chart grows below
/// the plot where its labels need the room). Every text stays inside the chart: long labels are
/// cut with "..." and carry the whole text in a <title>.
std::string render(const bar_chart& chart, int width = 640, int height = 320);
std::string render(const line_chart& chart, int width = 640, int height = 320);
std::string render(const heat_map& chart, int width = 640, int height = 320);

/// The width in CSS pixels that a label of `text` is given at the charts' 11 px font (an
/// estimate on the generous side, so that what fits by it fits on screen).
double text_width(std::string_view text, double font_px = 11);

/// `text` cut to at most `px` pixels wide, ending in "..." where it was cut.
std::string fit(const std::string& text, double px, double font_px = 11);

/// The chart colours, in order of series.
const std::vector<std::string>& palette();

} // namespace bb::render::svg
