#include "runner/render/bankmap_svg.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "runner/model/bankmap.hpp"

namespace bb::render {

using model::access_cost;
using model::bank_detail;
using model::bank_label;
using model::bank_of;
using model::bankmap;
using model::evaluate;
using model::k_banks;
using model::k_warp_lanes;
using model::kind_label;
using model::phase_banks;
using model::tile_layout;
using model::verdict;
using model::warp_access;

namespace {

constexpr int k_left = 40, k_top = 64, k_box = 26;

/// Neighbouring banks get neighbouring hues, alternately light and dark, so a conflict-free
/// column reads as a rainbow and a conflicted one as a single colour.
std::string bank_fill(int bank) {
  return fmt::format("hsl({:.2f},70%,{}%)", bank * 360.0 / k_banks, bank % 2 == 0 ? 80 : 66);
}

// Not svg::escape, which also writes quotes as entities: a --variant title holds its parameters
// as JSON, and its pictures would change.
std::string escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else
      out += c;
  }
  return out;
}

struct lanes_on_element {
  int first = 0, count = 0;
};

/// The grid: logical elements coloured by bank, padding grey, the lanes' elements outlined.
void write_grid(const tile_layout& t, const warp_access& a, int cell, std::ostream& out) {
  const int pitch = t.row_pitch_elements;
  const bool labels = cell >= 16, lane_labels = cell >= 22;
  std::map<std::uint32_t, std::size_t> element_at;
  for (std::size_t i = 0; i < t.address.size(); ++i) element_at.emplace(t.address[i], i);
  std::map<std::size_t, lanes_on_element> touched;
  for (int lane = 0; lane < k_warp_lanes; ++lane) {
    if ((a.active >> lane & 1u) == 0) continue;
    const auto it = element_at.find(a.address[static_cast<std::size_t>(lane)]);
    if (it == element_at.end()) continue; // an address between elements: the table still lists it
    auto& l = touched[it->second];
    if (l.count++ == 0) l.first = lane;
  }
  out << fmt::format("<g font-size=\"{}\" text-anchor=\"middle\">\n", labels ? 10 : 7);
  for (int c = 0; c < pitch; c += labels ? 1 : 4)
    out << fmt::format("<text x=\"{}\" y=\"{}\" fill=\"#555\">{}</text>\n", k_left + c * cell + cell / 2, k_top - 6, c);
  for (int r = 0; r < t.rows; r += labels ? 1 : 4)
    out << fmt::format("<text x=\"{}\" y=\"{}\" fill=\"#555\" text-anchor=\"end\">{}</text>\n", k_left - 6,
                       k_top + r * cell + cell / 2 + 4, r);
  for (int r = 0; r < t.rows; ++r)
    for (int c = 0; c < pitch; ++c) {
      const bool pad = c >= t.cols;
      const std::uint32_t address = pad ? static_cast<std::uint32_t>((r * pitch + c) * t.element_bytes)
                                        : t.address[static_cast<std::size_t>(r * t.cols + c)];
      const int x = k_left + c * cell, y = k_top + r * cell;
      out << fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"#fff\" stroke-width=\"0.5\"/>\n", x,
          y, cell, cell, pad ? std::string("#e6e6e6") : bank_fill(bank_of(address)));
      // Outlined cells carry the lane number at the top, so their bank number moves down.
      const bool lane_here = lane_labels && !pad && touched.count(static_cast<std::size_t>(r * t.cols + c)) != 0;
      if (labels)
        out << fmt::format("<text x=\"{}\" y=\"{}\" fill=\"{}\">{}</text>\n", x + cell / 2,
                           lane_here ? y + cell - 4 : y + cell / 2 + 4, pad ? "#aaa" : "#222",
                           bank_label(address, t.element_bytes));
    }
  out << "</g>\n";
  out << "<g fill=\"none\" stroke=\"#000\" stroke-width=\"2.5\">\n";
  for (const auto& [element, lanes] : touched) {
    const int r = static_cast<int>(element) / t.cols, c = static_cast<int>(element) % t.cols;
    out << fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>\n", k_left + c * cell + 1.25,
                       k_top + r * cell + 1.25, cell - 2.5, cell - 2.5);
  }
  out << "</g>\n";
  if (!lane_labels) return;
  out << "<g font-size=\"7\" fill=\"#000\">\n";
  for (const auto& [element, lanes] : touched) {
    const int r = static_cast<int>(element) / t.cols, c = static_cast<int>(element) % t.cols;
    const std::string label = lanes.count == 1 ? fmt::format("L{}", lanes.first)
                                               : fmt::format("L{}+{}", lanes.first, lanes.count - 1);
    out << fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", k_left + c * cell + 3, k_top + r * cell + 9, label);
  }
  out << "</g>\n";
}

/// One row of 32 boxes per phase: the distinct words each bank must serve; the busiest banks of
/// a conflicted request framed in red.
int write_banks(const std::vector<phase_banks>& phases, const access_cost& cost, int top, std::ostream& out) {
  int y = top;
  for (const auto& p : phases) {
    out << fmt::format(
        "<text x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"#333\">distinct words per bank, lanes {}-{}</text>\n", k_left,
        y, p.first_lane, p.first_lane + p.lanes - 1);
    y += 6;
    for (int b = 0; b < k_banks; ++b) {
      const int words = p.words_per_bank[static_cast<std::size_t>(b)];
      const bool worst = cost.degree > 1 && words == cost.degree;
      const int x = k_left + b * k_box;
      out << fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"{}\" stroke-width=\"{}\"/>\n", x, y,
          k_box, k_box, words == 0 ? std::string("#f4f4f4") : bank_fill(b), worst ? "#d00" : "#fff", worst ? 2.5 : 0.5);
      out << fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"7\" fill=\"#555\" text-anchor=\"middle\">b{}</text>\n",
                         x + k_box / 2, y + 8, b);
      if (words > 0)
        out << fmt::format(
            "<text x=\"{}\" y=\"{}\" font-size=\"11\" font-weight=\"bold\" text-anchor=\"middle\">{}</text>\n",
            x + k_box / 2, y + 21, words);
    }
    y += k_box + 22;
  }
  return y;
}

} // namespace

void write_bankmap_svg(const bankmap& m, std::ostream& out) {
  const warp_access& a = m.access;
  const access_cost cost = evaluate(a);
  const auto phases = bank_detail(a);
  const int pitch = m.tile ? m.tile->row_pitch_elements : 0, rows = m.tile ? m.tile->rows : 0;
  const int cell = pitch > 0 ? std::clamp(860 / pitch, 6, 26) : 0;
  const int grid_bottom = k_top + rows * cell;
  const int banks_top = (m.tile ? grid_bottom : k_top - 30) + 28;
  const int width = k_left + std::max(pitch * cell, k_banks * k_box) + 20;
  // Each phase takes a label line, a gap and a row of boxes.
  const int caption_top = banks_top + static_cast<int>(phases.size()) * (k_box + 28) + 6;
  const int height = caption_top + 40;

  out << fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
                     "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n",
                     width, height, width, height);
  out << fmt::format("<rect width=\"{}\" height=\"{}\" fill=\"#fff\"/>\n", width, height);
  out << fmt::format("<text x=\"{}\" y=\"22\" font-size=\"15\" font-weight=\"bold\">{}</text>\n", k_left,
                     escape(m.title));
  out << fmt::format(
      "<text x=\"{}\" y=\"40\" font-size=\"11\" fill=\"#333\">{}, {} B per lane, {} active lanes; cell: the "
      "bank holding the element (grey: padding); outlined: the lanes' elements</text>\n",
      k_left, kind_label(a.kind), a.width, cost.active_lanes);
  if (m.tile) write_grid(*m.tile, a, cell, out);
  write_banks(phases, cost, banks_top, out);
  out << fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"14\" font-weight=\"bold\" fill=\"{}\">{}</text>\n", k_left,
                     caption_top + 4, cost.degree > 1 ? "#b00" : "#060", escape(verdict(cost)));
  out << fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"10\" fill=\"#555\">bankbench bank model, {}</text>\n", k_left,
                     caption_top + 22, "32 banks x 4 B; docs/bank-model.md");
  out << "</svg>\n";
}

} // namespace bb::render
