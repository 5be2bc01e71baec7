#include "runner/render/report_lines.hpp"

#include <algorithm>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "runner/query/cells.hpp"
#include "runner/query/lines.hpp"
#include "runner/render/report_html.hpp"
#include "runner/render/svg.hpp"
#include "runner/store/lines.hpp"

namespace bb::render::report_lines {

namespace {

// A line with all of its configuration's excess is shaded this opaque; others in proportion.
constexpr double k_full_alpha = 0.6;
constexpr const char* k_residual_text = "conflicts no address caused";

std::string td(const std::string& text) { return "<td>" + svg::escape(text) + "</td>"; }
std::string td_number(const std::string& text) { return "<td class=\"num\">" + svg::escape(text) + "</td>"; }

std::string source_row(const query::source_line& l) {
  const std::string style = l.share && *l.share > 0
                                ? fmt::format(" style=\"background: rgba(192, 0, 0, {:.3f})\"", k_full_alpha * *l.share)
                                : "";
  return fmt::format("<tr{}>{}<td><code>{}</code></td>{}{}{}{}{}{}</tr>", style,
                     td(l.file.empty() ? "(no line info)" : fmt::format("{}:{}", l.file, l.line)), svg::escape(l.text),
                     td(l.opcodes), td_number(std::to_string(l.executions)), td_number(std::to_string(l.wavefronts)),
                     td_number(std::to_string(l.ideal)), td_number(std::to_string(l.excess)),
                     td_number(l.share ? fmt::format("{:.1f}%", 100 * *l.share) : "-"));
}

std::string configuration_block(const store::result_row& row, const store::line_collection& collection) {
  query::configuration_lines c;
  c.kernel = query::demangled(collection.kernel);
  c.lines = query::rank_lines(collection.rows, query::source_reader());
  for (const auto& l : c.lines) c.excess += l.excess;
  std::vector<std::pair<std::string, double>> means;
  for (const auto& [name, stats] : row.metrics) means.emplace_back(name, stats.mean);
  c.hardware = query::hardware_conflicts_of(means);
  // In the order the source reads, not by excess.
  std::sort(c.lines.begin(), c.lines.end(), [](const query::source_line& a, const query::source_line& b) {
    return std::tie(a.file, a.line) < std::tie(b.file, b.line);
  });

  const std::string params = query::compact_params(row.params_json);
  const std::string title = fmt::format("run {}, seq {}: {}{}", row.run_id, row.seq, query::short_variant(row.variant),
                                        params.empty() ? "" : " " + params);
  const std::string kernel = c.kernel.empty() ? "-" : c.kernel;
  std::string out = fmt::format("<details{}><summary>{}: excess {} wavefronts</summary>\n", c.excess > 0 ? " open" : "",
                                svg::escape(title), c.excess);
  if (collection.status != store::lines_status::ok) {
    out += html::note(fmt::format("kernel {}: lines not collected ({}){}", kernel, store::name_of(collection.status),
                                  collection.note.empty() ? "" : ": " + collection.note));
    return out + "</details>\n";
  }
  out += fmt::format("<p>kernel <code>{}</code>: {} source line{}</p>\n", svg::escape(kernel), c.lines.size(),
                     c.lines.size() == 1 ? "" : "s");
  if (!collection.note.empty()) out += html::note("note: " + collection.note);
  if (c.lines.empty()) return out + html::note("no shared-memory instructions") + "</details>\n";
  out += "<table class=\"lines\"><thead><tr>";
  for (const char* h : {"line", "source", "opcodes", "executions", "wavefronts", "ideal", "excess", "share"})
    out += fmt::format("<th>{}</th>", h);
  out += "</tr></thead><tbody>";
  for (const auto& l : c.lines) out += source_row(l);
  if (const auto residual = c.residual())
    out += fmt::format("<tr class=\"residual\">{}{}{}{}{}{}{}{}</tr>", td("-"), td(k_residual_text), td(""), td(""),
                       td(""), td(""), td_number(query::number(*residual, 0).text), td_number("-"));
  out += "</tbody></table>\n";
  if (c.hardware) {
    std::string parts;
    for (const auto& [name, value] : c.hardware->parts)
      parts += (parts.empty() ? "" : ", ") + fmt::format("{} {}", name, value);
    out += html::note(fmt::format("{}: hardware conflicts {} ({}) minus the lines' excess {}", k_residual_text,
                                  c.hardware->total, parts, c.excess));
  }
  return out + "</details>\n";
}

} // namespace

std::string annotated_sources(const store::database& db, const std::vector<store::result_row>& rows) {
  std::string blocks;
  for (const auto& row : rows)
    if (const auto collection = store::read_lines(db, row.id)) blocks += configuration_block(row, *collection);
  if (blocks.empty()) return "";
  return "<h3>Source lines</h3>\n" +
         html::note("shared-memory wavefronts per source line (run --lines), in line order; a row's shade is its "
                    "share of the configuration's excess wavefronts") +
         blocks;
}

} // namespace bb::render::report_lines
