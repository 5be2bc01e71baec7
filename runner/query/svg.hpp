#pragma once
/// Charts as inline SVG text, for the HTML report and `history --svg`: no script, no external
/// file, so they render anywhere, offline, and each value carries a <title> shown on hover.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bb::query::svg {

/// Text made safe inside XML or HTML elements and attributes.
std::string escape(std::string_view text);

struct bar_series {
  std::string name;
  std::vector<std::optional<double>> values; ///< one per category; empty: no bar
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
  bool points_only = false;               ///< a scatter plot
  bool diagonal = false;                  ///< draw y = x, for predicted against measured
  std::vector<std::string> x_tick_labels; ///< when given, one per distinct x in order (e.g. commits)
};

/// A complete <svg> element, `width` x `height` CSS pixels.
std::string render(const bar_chart& chart, int width = 640, int height = 320);
std::string render(const line_chart& chart, int width = 640, int height = 320);

/// The chart colours, in order of series.
const std::vector<std::string>& palette();

} // namespace bb::query::svg
