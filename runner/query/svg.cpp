#include "query/svg.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "query/svg_axis.hpp"

namespace bb::query::svg {

namespace {

constexpr int k_left = 70, k_right = 16, k_bottom = 64;

// Series names in rows under the title, wrapping when they would leave the chart; `top` is where
// the plot may begin below them.
struct legend_block {
  std::string svg;
  int top = 0;
};

legend_block legend(const std::vector<std::string>& names, int width) {
  std::string out;
  double x = k_left, y = 36;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const double w = 18 + 7.0 * static_cast<double>(names[i].size()) + 14;
    if (x + w > width && x > k_left) {
      x = k_left;
      y += 14;
    }
    out += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"10\" height=\"10\" fill=\"{}\"/>"
                       "<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"legend\">{}</text>",
                       x, y - 9, palette()[i % palette().size()], x + 14, y, escape(names[i]));
    x += w;
  }
  return {out, static_cast<int>(y) + 16};
}

std::string open_svg(const std::string& title, int width, int height, const std::string& kind) {
  return fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart {}\" width=\"{}\" height=\"{}\" "
                     "viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\" font-family=\"sans-serif\" font-size=\"11\">"
                     "<title>{}</title><rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>"
                     "<text x=\"{}\" y=\"18\" font-size=\"14\" font-weight=\"bold\">{}</text>",
                     kind, width, height, width, height, escape(title), escape(title), k_left, escape(title));
}

std::string y_axis(const axis& y, const std::string& label, int width, int height, int top) {
  std::string out;
  for (const double t : y.ticks()) {
    const double py = y.to_pixel(t);
    out += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#dddddd\"/>"
                       "<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>",
                       k_left, width - k_right, py, py, k_left - 6, py + 4, tick_label(t));
  }
  out += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"#333333\"/>", k_left, k_left, top,
                     height - k_bottom);
  out += fmt::format("<text transform=\"translate(14 {}) rotate(-90)\" text-anchor=\"middle\">{}</text>",
                     (top + height - k_bottom) / 2, escape(label));
  return out;
}

} // namespace

std::string escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&#39;"; break;
    default: out += c;
    }
  }
  return out;
}

const std::vector<std::string>& palette() {
  static const std::vector<std::string> colours = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1",
                                                   "#76b7b2", "#edc948", "#ff9da7", "#9c755f"};
  return colours;
}

std::string render(const bar_chart& c, int width, int height) {
  std::vector<double> values;
  for (const auto& s : c.series)
    for (const auto& v : s.values)
      if (v) values.push_back(*v);
  std::vector<std::string> names;
  for (const auto& s : c.series) names.push_back(s.name);
  const legend_block key = legend(names, width);
  const int top = key.top;
  const axis y(values, height - k_bottom, top, c.log_y, !c.log_y);
  std::string out = open_svg(c.title, width, height, "bar-chart") + key.svg;
  out += y_axis(y, c.y_label, width, height, top);
  const double plot_w = width - k_left - k_right;
  const double group_w = plot_w / std::max<std::size_t>(1, c.categories.size());
  const double bar_w = group_w * 0.8 / static_cast<double>(std::max<std::size_t>(1, c.series.size()));
  bool rotate = false;
  for (const auto& cat : c.categories) rotate = rotate || 6.5 * static_cast<double>(cat.size()) > group_w;
  const double base = y.to_pixel(y.lowest());
  for (std::size_t i = 0; i < c.categories.size(); ++i) {
    const double gx = k_left + group_w * static_cast<double>(i);
    const bool flagged = i < c.flags.size() && !c.flags[i].empty();
    if (flagged)
      out += fmt::format("<rect class=\"flag\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"#fde0e0\">"
                         "<title>{}</title></rect>",
                         gx, top, group_w, height - k_bottom - top, escape(c.flags[i]));
    for (std::size_t s = 0; s < c.series.size(); ++s) {
      if (i >= c.series[s].values.size() || !c.series[s].values[i]) continue;
      const double v = *c.series[s].values[i];
      const double top = y.to_pixel(v);
      out += fmt::format("<rect class=\"bar\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\">"
                         "<title>{}, {}: {}</title></rect>",
                         gx + group_w * 0.1 + bar_w * static_cast<double>(s), std::min(top, base),
                         std::max(bar_w - 1, 1.0), std::max(std::abs(base - top), 0.5), palette()[s % palette().size()],
                         escape(c.series[s].name), escape(c.categories[i]), tick_label(v));
    }
    const double lx = gx + group_w / 2, ly = height - k_bottom + 14;
    const std::string colour = flagged ? "#c00000" : "#333333";
    if (rotate)
      out += fmt::format(
          "<text transform=\"translate({:.1f} {:.1f}) rotate(-30)\" text-anchor=\"end\" fill=\"{}\">{}</text>", lx,
          ly - 4, colour, escape(c.categories[i]));
    else
      out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" fill=\"{}\">{}</text>", lx, ly, colour,
                         escape(c.categories[i]));
  }
  out += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#333333\"/>", k_left,
                     width - k_right, base, base);
  return out + "</svg>";
}

std::string render(const line_chart& c, int width, int height) {
  std::vector<double> xs, ys;
  for (const auto& s : c.series)
    for (const auto& [x, y] : s.points) {
      xs.push_back(x);
      ys.push_back(y);
    }
  if (c.diagonal) { // one range for both axes, so that y = x is the diagonal
    std::vector<double> both = xs;
    both.insert(both.end(), ys.begin(), ys.end());
    xs = ys = both;
  }
  std::vector<std::string> names;
  for (const auto& s : c.series) names.push_back(s.name);
  const legend_block key = legend(names, width);
  const int top = key.top;
  const axis x(xs, k_left, width - k_right, c.log_x, false);
  const axis y(ys, height - k_bottom, top, c.log_y, false);
  std::string out = open_svg(c.title, width, height, c.points_only ? "scatter-chart" : "line-chart") + key.svg;
  out += y_axis(y, c.y_label, width, height, top);
  std::vector<std::pair<double, std::string>> x_ticks;
  std::set<double> distinct(xs.begin(), xs.end());
  if (!c.x_tick_labels.empty()) {
    std::size_t i = 0;
    for (const double v : distinct)
      if (i < c.x_tick_labels.size()) x_ticks.emplace_back(v, c.x_tick_labels[i++]);
  } else if (c.log_x && distinct.size() <= 10) {
    for (const double v : distinct) x_ticks.emplace_back(v, tick_label(v));
  } else {
    for (const double v : x.ticks()) x_ticks.emplace_back(v, tick_label(v));
  }
  for (const auto& [v, label] : x_ticks) {
    const double px = x.to_pixel(v);
    out += fmt::format("<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{}\" y2=\"{}\" stroke=\"#eeeeee\"/>"
                       "<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                       px, px, top, height - k_bottom, px, height - k_bottom + 14, escape(label));
  }
  out += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"#333333\"/>", k_left, width - k_right,
                     height - k_bottom, height - k_bottom);
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", (k_left + width - k_right) / 2,
                     height - 18, escape(c.x_label));
  if (c.diagonal && !xs.empty()) {
    const double lo = x.lowest(), hi = x.highest();
    out += fmt::format("<line class=\"diagonal\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
                       "stroke=\"#999999\" stroke-dasharray=\"4 3\"><title>predicted = measured</title></line>",
                       x.to_pixel(lo), y.to_pixel(lo), x.to_pixel(hi), y.to_pixel(hi));
  }
  for (std::size_t s = 0; s < c.series.size(); ++s) {
    auto points = c.series[s].points;
    std::vector<std::size_t> order(points.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return points[a].first < points[b].first; });
    const std::string& colour = palette()[s % palette().size()];
    std::string line;
    for (const std::size_t i : order) {
      if (!x.shows(points[i].first) || !y.shows(points[i].second)) continue;
      line += fmt::format("{:.1f},{:.1f} ", x.to_pixel(points[i].first), y.to_pixel(points[i].second));
    }
    if (!c.points_only && !line.empty())
      out += fmt::format("<polyline class=\"line\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"/>",
                         colour, line);
    for (const std::size_t i : order) {
      const auto [px, py] = points[i];
      if (!x.shows(px) || !y.shows(py)) continue;
      const std::string note = i < c.series[s].notes.size() ? c.series[s].notes[i] : "";
      out += fmt::format("<circle class=\"point\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\"><title>{}: {}, "
                         "{}{}</title></circle>",
                         x.to_pixel(px), y.to_pixel(py), colour, escape(c.series[s].name), tick_label(px),
                         tick_label(py), note.empty() ? "" : " (" + escape(note) + ")");
    }
  }
  return out + "</svg>";
}

} // namespace bb::query::svg
