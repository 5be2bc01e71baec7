#include "runner/render/report_html.hpp"

#include <fmt/format.h>

#include "runner/render/svg.hpp"

namespace bb::render::html {

namespace {

constexpr const char* k_style = R"(
body { font-family: sans-serif; margin: 24px; color: #222; max-width: 1400px; }
h1 { font-size: 22px; } h2 { font-size: 18px; border-bottom: 1px solid #ccc; padding-top: 12px; }
h3 { font-size: 15px; margin-top: 20px; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; }
th { background: #f3f3f3; }
tr.bad td { background: #fde0e0; color: #900; }
tr.good td { background: #e3f4e1; }
.badge { display: inline-block; padding: 2px 8px; border-radius: 10px; font-size: 12px; }
.badge { background: #777; color: #fff; } .badge.bad { background: #c00000; color: #fff; } .badge.ok { background: #2e7d32; color: #fff; }
figure { display: inline-block; margin: 8px 16px 8px 0; vertical-align: top; }
figcaption { font-size: 12px; color: #555; max-width: 640px; }
p.note { color: #666; font-style: italic; }
nav { display: flex; flex-wrap: wrap; gap: 4px 12px; max-width: 100%; } nav a { overflow-wrap: anywhere; }
td.num { text-align: right; } tr.residual td { color: #555; font-style: italic; }
details { margin: 4px 0 8px; } summary { cursor: pointer; font-size: 14px; }
)";

} // namespace

std::string table(const std::vector<std::string>& headers, const std::vector<std::vector<std::string>>& rows,
                  const std::vector<std::string>& row_classes) {
  std::string out = "<table><thead><tr>";
  for (const auto& h : headers) out += "<th>" + svg::escape(h) + "</th>";
  out += "</tr></thead><tbody>";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string cls = i < row_classes.size() && !row_classes[i].empty() ? " class=\"" + row_classes[i] + "\""
                                                                              : "";
    out += "<tr" + cls + ">";
    for (const auto& cell : rows[i]) out += "<td>" + svg::escape(cell) + "</td>";
    out += "</tr>";
  }
  return out + "</tbody></table>\n";
}

std::string figure(const std::string& svg_text, const std::string& caption) {
  return fmt::format("<figure>{}<figcaption>{}</figcaption></figure>\n", svg_text, svg::escape(caption));
}

std::string page_start(const std::string& title) {
  return fmt::format("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n"
                     "<style>{}</style>\n</head>\n<body>\n",
                     svg::escape(title), k_style);
}

std::string note(const std::string& text) { return "<p class=\"note\">" + svg::escape(text) + "</p>\n"; }

} // namespace bb::render::html
