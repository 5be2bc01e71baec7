#include "runner/render/svg.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "runner/render/svg_axis.hpp"

namespace bb::render::svg {

namespace {

constexpr int k_left = 70, k_right = 16, k_bottom = 64;

// Series names in rows under the title, wrapping when they would leave the chart; `top` is where
// the plot may begin below them.
struct legend_block {
  std::string svg;
  int top = 0;
};

/// Text with its whole content in a <title> where fit() cut it.
std::string label_text(const std::string& attributes, const std::string& text, double px, double font_px = 11) {
  const std::string shown = fit(text, px, font_px);
  return fmt::format("<text {}>{}{}</text>", attributes, escape(shown),
                     shown == text ? "" : "<title>" + escape(text) + "</title>");
}

legend_block legend(const std::vector<std::string>& names, int width) {
  std::string out;
  double x = k_left, y = 36;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string name = fit(names[i], width - k_left - k_right - 14);
    const double w = 14 + text_width(name) + 14;
    if (x + w > width - k_right && x > k_left) {
      x = k_left;
      y += 14;
    }
    out += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"10\" height=\"10\" fill=\"{}\"/>", x, y - 9,
                       palette()[i % palette().size()]);
    out += label_text(fmt::format("x=\"{:.1f}\" y=\"{:.1f}\" class=\"legend\"", x + 14, y), names[i],
                      width - k_right - (x + 14));
    x += w;
  }
  return {out, static_cast<int>(y) + 16};
}

std::string open_svg(const std::string& title, int width, int height, const std::string& kind) {
  return fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart {}\" width=\"{}\" height=\"{}\" "
                     "viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\" font-family=\"sans-serif\" font-size=\"11\">"
                     "<title>{}</title><rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>",
                     kind, width, height, width, height, escape(title), escape(title)) +
         label_text(fmt::format("x=\"{}\" y=\"18\" font-size=\"14\" font-weight=\"bold\"", 8), title, width - 16, 15.5);
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
  out += label_text(fmt::format("transform=\"translate(14 {}) rotate(-90)\" text-anchor=\"middle\"",
                                (top + height - k_bottom) / 2),
                    label, height - k_bottom - top);
  return out;
}

/// Marks a missing value at the foot of its place: a red cross that says why on hover.
std::string missing_mark(double x, double y, const std::string& why) {
  return fmt::format("<text class=\"missing\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" fill=\"#c00000\" "
                     "font-weight=\"bold\">\u00d7<title>{}</title></text>",
                     x, y, escape(why));
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

double text_width(std::string_view text, double font_px) {
  // DejaVu Sans and Liberation Sans advance widths in em, rounded up by class.
  double em = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) { // one UTF-8 sequence: one wide glyph
      while (i + 1 < text.size() && (static_cast<unsigned char>(text[i + 1]) & 0xC0) == 0x80) ++i;
      em += 0.9;
    } else if (std::string_view(" .,:;'!|()[]ijlft").find(static_cast<char>(c)) != std::string_view::npos) {
      em += 0.4;
    } else if (c == 'm' || c == 'w' || c == 'M' || c == 'W' || c == '%' || c == '@') {
      em += 1.0;
    } else if (std::isupper(c) != 0 || c == '=' || c == '+' || c == '<' || c == '>' || c == '~') {
      em += 0.85;
    } else {
      em += 0.66;
    }
  }
  return em * font_px;
}

std::string fit(const std::string& text, double px, double font_px) {
  if (text_width(text, font_px) <= px) return text;
  std::string cut = text;
  while (!cut.empty() && text_width(cut + "...", font_px) > px) cut.pop_back();
  while (!cut.empty() && (static_cast<unsigned char>(cut.back()) & 0xC0) == 0x80) cut.pop_back(); // whole glyphs
  if (!cut.empty() && static_cast<unsigned char>(cut.back()) >= 0xC0) cut.pop_back();
  return cut + "...";
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
  const double plot_w = width - k_left - k_right;
  const double group_w = plot_w / static_cast<double>(std::max<std::size_t>(1, c.categories.size()));
  // Category labels: level where they fit, else upright (rotated a quarter turn, reading upwards)
  // with the room below the plot they need, cut at 240 px.
  constexpr double k_longest_label = 240;
  double widest = 0;
  for (const auto& cat : c.categories) widest = std::max(widest, text_width(cat));
  const bool rotate = widest + 4 > group_w;
  const double label_room = rotate ? std::min(widest, k_longest_label) + 10 : 18;
  const int bottom = static_cast<int>(std::ceil(label_room)) + 8;
  height += bottom - k_bottom; // the plot keeps its height; the svg grows or shrinks by what the labels take
  const legend_block key = legend(names, width);
  const int top = key.top;
  const int plot_bottom = height - bottom;
  const axis y(values, plot_bottom, top, c.log_y, !c.log_y);
  std::string out = open_svg(c.title, width, height, "bar-chart") + key.svg;
  out += y_axis(y, c.y_label, width, plot_bottom + k_bottom, top);
  const double bar_w = group_w * 0.8 / static_cast<double>(std::max<std::size_t>(1, c.series.size()));
  const double base = y.to_pixel(y.lowest());
  const bool all_zero = !values.empty() && std::all_of(values.begin(), values.end(), [](double v) { return v == 0; });
  for (std::size_t i = 0; i < c.categories.size(); ++i) {
    const double gx = k_left + group_w * static_cast<double>(i);
    const bool flagged = i < c.flags.size() && !c.flags[i].empty();
    if (flagged)
      out += fmt::format("<rect class=\"flag\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"#fde0e0\">"
                         "<title>{}</title></rect>",
                         gx, top, group_w, plot_bottom - top, escape(c.flags[i]));
    for (std::size_t s = 0; s < c.series.size(); ++s) {
      const double bx = gx + group_w * 0.1 + bar_w * static_cast<double>(s);
      if (i >= c.series[s].values.size() || !c.series[s].values[i]) {
        if (i < c.series[s].missing.size() && !c.series[s].missing[i].empty())
          out += missing_mark(bx + bar_w / 2, base - 3,
                              c.series[s].name + ", " + c.categories[i] + ": " + c.series[s].missing[i]);
        continue;
      }
      const double v = *c.series[s].values[i];
      const double py = y.to_pixel(v);
      out += fmt::format("<rect class=\"bar\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\">"
                         "<title>{}, {}: {}</title></rect>",
                         bx, std::min(py, base), std::max(bar_w - 1, 1.0), std::max(std::abs(base - py), 0.5),
                         palette()[s % palette().size()], escape(c.series[s].name), escape(c.categories[i]),
                         tick_label(v));
      // A zero is a measurement, not a gap: say so where there is room (the whole chart says it otherwise).
      if (v == 0 && !all_zero && bar_w >= text_width("0") + 1)
        out += fmt::format(
            "<text class=\"zero\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" fill=\"#555555\">0</text>",
            bx + bar_w / 2, base - 3);
    }
    const double lx = gx + group_w / 2, ly = plot_bottom + 14;
    const std::string colour = flagged ? "#c00000" : "#333333";
    if (rotate)
      out += label_text(fmt::format("transform=\"translate({:.1f} {:.1f}) rotate(-90)\" text-anchor=\"end\" "
                                    "dominant-baseline=\"middle\" fill=\"{}\"",
                                    lx, plot_bottom + 6.0, colour),
                        c.categories[i], k_longest_label);
    else
      out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" fill=\"{}\">{}</text>", lx, ly, colour,
                         escape(c.categories[i]));
  }
  out += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#333333\"/>", k_left,
                     width - k_right, base, base);
  if (all_zero)
    out += fmt::format("<text class=\"all-zero\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" fill=\"#555555\">"
                       "every value is 0</text>",
                       k_left + plot_w / 2, (top + plot_bottom) / 2.0);
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
  const axis y(ys, height - k_bottom, top, c.log_y, c.y_from_zero && !c.log_y);
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
  double last_right = -1e9; // a tick label that would overlap the one before it is left out
  for (const auto& [v, label] : x_ticks) {
    const double px = x.to_pixel(v);
    const double half = text_width(label) / 2;
    if (px - half < last_right + 4 || px + half > width) continue;
    last_right = px + half;
    out += fmt::format("<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{}\" y2=\"{}\" stroke=\"#eeeeee\"/>"
                       "<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                       px, px, top, height - k_bottom, px, height - k_bottom + 14, escape(label));
  }
  out += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"#333333\"/>", k_left, width - k_right,
                     height - k_bottom, height - k_bottom);
  out +=
      label_text(fmt::format("x=\"{}\" y=\"{}\" text-anchor=\"middle\"", (k_left + width - k_right) / 2, height - 18),
                 c.x_label, width - k_left - k_right);
  if (c.diagonal && !xs.empty()) {
    const double lo = x.lowest(), hi = x.highest();
    out += fmt::format("<line class=\"diagonal\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
                       "stroke=\"#999999\" stroke-dasharray=\"4 3\"><title>predicted = measured</title></line>",
                       x.to_pixel(lo), y.to_pixel(lo), x.to_pixel(hi), y.to_pixel(hi));
  }
  if (!ys.empty() && std::all_of(ys.begin(), ys.end(), [](double v) { return v == 0; }))
    out += fmt::format("<text class=\"all-zero\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" fill=\"#555555\">"
                       "every value is 0</text>",
                       (k_left + width - k_right) / 2.0, (top + height - k_bottom) / 2.0 - 10);
  // Each line a little thinner than the one before, so that lines with the same values show as
  // nested strokes rather than hiding each other.
  const auto width_of = [&](std::size_t s) {
    return c.series.size() < 2
               ? 2.0
               : std::max(1.5, 5.0 - 3.0 * static_cast<double>(s) / static_cast<double>(c.series.size() - 1));
  };
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
      out += fmt::format("<polyline class=\"line\" fill=\"none\" stroke=\"{}\" stroke-width=\"{:.1f}\" points=\"{}\"/>",
                         colour, width_of(s), line);
    for (const std::size_t i : order) {
      const auto [px, py] = points[i];
      if (!x.shows(px) || !y.shows(py)) continue;
      const std::string note = i < c.series[s].notes.size() ? c.series[s].notes[i] : "";
      out += fmt::format("<circle class=\"point\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" fill=\"{}\"><title>{}: {}, "
                         "{}{}</title></circle>",
                         x.to_pixel(px), y.to_pixel(py), c.points_only ? 3.5 : width_of(s) + 1.5, colour,
                         escape(c.series[s].name), tick_label(px), tick_label(py),
                         note.empty() ? "" : " (" + escape(note) + ")");
    }
  }
  for (const auto& f : c.flags) {
    if (!x.shows(f.x) || !y.shows(f.y)) continue;
    out += fmt::format("<circle class=\"flag\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"9\" fill=\"none\" stroke=\"#c00000\" "
                       "stroke-width=\"2\"><title>{}</title></circle>",
                       x.to_pixel(f.x), y.to_pixel(f.y), escape(f.why));
  }
  return out + "</svg>";
}

std::string render(const heat_map& c, int width, int height) {
  const std::size_t nx = std::max<std::size_t>(1, c.x_categories.size()),
                    ny = std::max<std::size_t>(1, c.y_categories.size());
  double widest_y = text_width(c.y_label);
  for (const auto& l : c.y_categories) widest_y = std::max(widest_y, text_width(l));
  const double left = std::min(widest_y, 160.0) + 12, top = 56, right = 16;
  const double cell_w = (width - left - right) / static_cast<double>(nx);
  double widest_x = 0;
  for (const auto& l : c.x_categories) widest_x = std::max(widest_x, text_width(l));
  const bool rotate = widest_x + 4 > cell_w;
  const double bottom = (rotate ? std::min(widest_x, 120.0) + 10 : 18) + 26;
  const double cell_h = std::clamp((height - top - 46) / static_cast<double>(ny), 14.0, 28.0);
  height = static_cast<int>(std::ceil(top + cell_h * static_cast<double>(ny) + bottom));
  std::vector<double> all;
  for (const auto& row : c.values)
    for (const auto& v : row)
      if (v) all.push_back(*v);
  const double lo = all.empty() ? 0 : *std::min_element(all.begin(), all.end());
  const double hi = all.empty() ? 0 : *std::max_element(all.begin(), all.end());
  std::string out = open_svg(c.title, width, height, "heat-map");
  out += label_text(fmt::format("x=\"{}\" y=\"34\" fill=\"#555555\"", 8),
                    all.empty() ? fmt::format("{}: no values", c.value_label)
                    : hi > lo   ? fmt::format("{}: {} (lightest) to {} (darkest)", c.value_label, tick_label(lo),
                                              tick_label(hi))
                                : fmt::format("{}: all {}", c.value_label, tick_label(lo)),
                    width - 16);
  for (std::size_t yi = 0; yi < c.y_categories.size(); ++yi) {
    const double cy = top + cell_h * static_cast<double>(yi);
    out += label_text(fmt::format("x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\" dominant-baseline=\"middle\"",
                                  left - 6, cy + cell_h / 2),
                      c.y_categories[yi], left - 10);
    for (std::size_t xi = 0; xi < c.x_categories.size(); ++xi) {
      const double cx = left + cell_w * static_cast<double>(xi);
      const bool has = yi < c.values.size() && xi < c.values[yi].size() && c.values[yi][xi].has_value();
      const std::string where = c.y_label + " " + c.y_categories[yi] + ", " + c.x_label + " " + c.x_categories[xi];
      if (!has) {
        const std::string why = yi < c.missing.size() && xi < c.missing[yi].size() ? c.missing[yi][xi] : "";
        out += fmt::format("<rect class=\"cell empty\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
                           "fill=\"#f4f4f4\" stroke=\"#ffffff\"/>",
                           cx, cy, cell_w, cell_h);
        if (!why.empty()) out += missing_mark(cx + cell_w / 2, cy + cell_h / 2 + 4, where + ": " + why);
        continue;
      }
      const double value = c.values[yi][xi].value_or(0);
      const double t = hi > lo ? (value - lo) / (hi - lo) : 0;
      // From a pale to a deep blue; the value's text turns white where the cell is dark.
      const int r = static_cast<int>(std::lround(239 - t * (239 - 33))),
                g = static_cast<int>(std::lround(243 - t * (243 - 75))),
                b = static_cast<int>(std::lround(255 - t * (255 - 140)));
      out += fmt::format("<rect class=\"cell\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
                         "fill=\"#{:02x}{:02x}{:02x}\" stroke=\"#ffffff\"><title>{}: {}</title></rect>",
                         cx, cy, cell_w, cell_h, r, g, b, escape(where), tick_label(value));
      // Every cell shows its number: in 10 px where it fits, smaller where the cell is narrow or low.
      const std::string text = tick_label(value);
      const double size = std::clamp(std::min(10.0 * (cell_w - 2) / std::max(text_width(text, 10), 1.0), cell_h - 2),
                                     4.0, 10.0);
      out += fmt::format("<text class=\"value\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" "
                         "dominant-baseline=\"middle\" font-size=\"{:.3g}\" fill=\"{}\">{}</text>",
                         cx + cell_w / 2, cy + cell_h / 2, size, t > 0.55 ? "#ffffff" : "#222222", escape(text));
    }
  }
  const double grid_bottom = top + cell_h * static_cast<double>(ny);
  // Upright labels need 13 px each: where cells are narrower, every k-th column is named.
  const std::size_t every = rotate ? static_cast<std::size_t>(std::ceil(13.0 / cell_w)) : 1;
  for (std::size_t xi = 0; xi < c.x_categories.size(); ++xi) {
    if (xi % every != 0) continue;
    const double lx = left + cell_w * (static_cast<double>(xi) + 0.5);
    if (rotate)
      out += label_text(fmt::format("transform=\"translate({:.1f} {:.1f}) rotate(-90)\" text-anchor=\"end\" "
                                    "dominant-baseline=\"middle\"",
                                    lx, grid_bottom + 6),
                        c.x_categories[xi], 120);
    else
      out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>", lx, grid_bottom + 14,
                         escape(c.x_categories[xi]));
  }
  out += label_text(fmt::format("x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\"", (left + width - right) / 2,
                                height - 8.0),
                    c.x_label, width - left - right);
  out +=
      label_text(fmt::format("x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\" font-weight=\"bold\"", left - 6, top - 6),
                 c.y_label, left - 10);
  return out + "</svg>";
}

} // namespace bb::render::svg
