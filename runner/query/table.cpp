#include "query/table.hpp"

#include <algorithm>

#include "common/error.hpp"

namespace bb::query {

namespace {

std::string pad(std::string_view text, std::size_t width, align a) {
  const std::size_t fill = width - std::min(width, display_width(text));
  std::string out;
  if (a == align::right) out.append(fill, ' ');
  out.append(text);
  if (a == align::left) out.append(fill, ' ');
  return out;
}

void rstrip(std::string& line) {
  while (!line.empty() && line.back() == ' ') line.pop_back();
}

std::string markdown_cell(std::string_view text) {
  std::string out;
  for (char ch : text) {
    if (ch == '|') out += '\\';
    out += ch == '\n' ? ' ' : ch;
  }
  return out;
}

std::string csv_cell(std::string_view text) {
  const bool quote = text.find_first_of(",\"\r\n") != std::string_view::npos ||
                     (!text.empty() && (text.front() == ' ' || text.back() == ' '));
  if (!quote) return std::string(text);
  std::string out = "\"";
  for (char ch : text) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

} // namespace

output_format parse_format(std::string_view name) {
  if (name == "table") return output_format::table;
  if (name == "markdown" || name == "md") return output_format::markdown;
  if (name == "csv") return output_format::csv;
  throw usage_error("unknown format '" + std::string(name) + "'; expected table, markdown or csv");
}

std::size_t display_width(std::string_view text) {
  // Continuation bytes (10xxxxxx) do not start a code point.
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char ch) { return (static_cast<unsigned char>(ch) & 0xC0) != 0x80; }));
}

text_table::text_table(std::vector<column> columns) : m_columns(std::move(columns)) {}

void text_table::add_row(std::vector<std::string> cells) {
  if (cells.size() > m_columns.size())
    throw std::logic_error("text_table: a row has more cells than the table has columns");
  cells.resize(m_columns.size());
  m_rows.push_back(std::move(cells));
}

std::vector<std::size_t> text_table::widths() const {
  std::vector<std::size_t> w;
  for (const column& c : m_columns) w.push_back(display_width(c.header));
  for (const auto& row : m_rows)
    for (std::size_t i = 0; i < row.size(); ++i) w[i] = std::max(w[i], display_width(row[i]));
  return w;
}

void text_table::write(std::ostream& out, output_format format) const {
  switch (format) {
  case output_format::table: write_text(out); break;
  case output_format::markdown: write_markdown(out); break;
  case output_format::csv: write_csv(out); break;
  }
}

void text_table::write_text(std::ostream& out) const {
  const auto w = widths();
  auto line = [&](auto cell_of) {
    std::string text;
    for (std::size_t i = 0; i < m_columns.size(); ++i) {
      if (i > 0) text += "  ";
      text += cell_of(i);
    }
    rstrip(text);
    out << text << '\n';
  };
  line([&](std::size_t i) { return pad(m_columns[i].header, w[i], m_columns[i].alignment); });
  line([&](std::size_t i) { return std::string(w[i], '-'); });
  for (const auto& row : m_rows) line([&](std::size_t i) { return pad(row[i], w[i], m_columns[i].alignment); });
}

void text_table::write_markdown(std::ostream& out) const {
  // Widths after escaping, so the source lines up as well as the rendered table.
  std::vector<std::vector<std::string>> cells;
  std::vector<std::size_t> w;
  for (const column& c : m_columns) w.push_back(std::max<std::size_t>(3, display_width(markdown_cell(c.header))));
  for (const auto& row : m_rows) {
    auto& escaped = cells.emplace_back();
    for (std::size_t i = 0; i < row.size(); ++i) {
      escaped.push_back(markdown_cell(row[i]));
      w[i] = std::max(w[i], display_width(escaped.back()));
    }
  }
  auto line = [&](auto cell_of) {
    std::string text = "|";
    for (std::size_t i = 0; i < m_columns.size(); ++i) {
      text += ' ';
      text += cell_of(i);
      text += " |";
    }
    out << text << '\n';
  };
  line([&](std::size_t i) { return pad(markdown_cell(m_columns[i].header), w[i], m_columns[i].alignment); });
  line([&](std::size_t i) {
    return m_columns[i].alignment == align::right ? std::string(w[i] - 1, '-') + ":" : std::string(w[i], '-');
  });
  for (const auto& row : cells) line([&](std::size_t i) { return pad(row[i], w[i], m_columns[i].alignment); });
}

void text_table::write_csv(std::ostream& out) const {
  auto line = [&](auto cell_of) {
    for (std::size_t i = 0; i < m_columns.size(); ++i) out << (i > 0 ? "," : "") << csv_cell(cell_of(i));
    out << '\n';
  };
  line([&](std::size_t i) -> const std::string& { return m_columns[i].header; });
  for (const auto& row : m_rows) line([&](std::size_t i) -> const std::string& { return row[i]; });
}

} // namespace bb::query
