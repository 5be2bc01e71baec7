#include "runner/query/table.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "runner/common/error.hpp"

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

const std::string& key_of(const column& c) { return c.key.empty() ? c.header : c.key; }

} // namespace

output_format parse_format(std::string_view name) {
  if (name == "table") return output_format::table;
  if (name == "markdown" || name == "md") return output_format::markdown;
  if (name == "csv") return output_format::csv;
  if (name == "json") return output_format::json;
  throw usage_error("unknown format '" + std::string(name) + "'; expected table, markdown, csv or json");
}

std::string csv_text(const nlohmann::json& value) {
  if (value.is_null()) return "";
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "1" : "0";
  if (value.is_number_float()) return fmt::format("{}", value.get<double>());
  return value.dump(); // integers, objects, arrays
}

std::size_t display_width(std::string_view text) {
  // Continuation bytes (10xxxxxx) do not start a code point.
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char ch) { return (static_cast<unsigned char>(ch) & 0xC0) != 0x80; }));
}

text_table::text_table(std::vector<column> columns) : m_columns(std::move(columns)) {}

void text_table::add_row(std::vector<cell> cells) {
  if (cells.size() > m_columns.size())
    throw std::logic_error("text_table: a row has more cells than the table has columns");
  cells.resize(m_columns.size());
  m_rows.push_back(std::move(cells));
}

std::vector<std::size_t> text_table::widths() const {
  std::vector<std::size_t> w;
  for (const column& c : m_columns) w.push_back(display_width(c.header));
  for (const auto& row : m_rows)
    for (std::size_t i = 0; i < row.size(); ++i) w[i] = std::max(w[i], display_width(row[i].text));
  return w;
}

void text_table::write(std::ostream& out, output_format format) const {
  switch (format) {
  case output_format::table: write_text(out); break;
  case output_format::markdown: write_markdown(out); break;
  case output_format::csv:
  case output_format::json: {
    row_stream stream(out, format, m_columns);
    for (const auto& row : m_rows) stream.add_row(row);
    stream.finish();
    break;
  }
  }
}

nlohmann::json text_table::records() const {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& row : m_rows) {
    nlohmann::json record = nlohmann::json::object();
    for (std::size_t i = 0; i < m_columns.size(); ++i) record[key_of(m_columns[i])] = row[i].value;
    out.push_back(std::move(record));
  }
  return out;
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
  for (const auto& row : m_rows) line([&](std::size_t i) { return pad(row[i].text, w[i], m_columns[i].alignment); });
}

void text_table::write_markdown(std::ostream& out) const {
  // Widths after escaping, so the source lines up as well as the rendered table.
  std::vector<std::vector<std::string>> cells;
  std::vector<std::size_t> w;
  for (const column& c : m_columns) w.push_back(std::max<std::size_t>(3, display_width(markdown_cell(c.header))));
  for (const auto& row : m_rows) {
    auto& escaped = cells.emplace_back();
    for (std::size_t i = 0; i < row.size(); ++i) {
      escaped.push_back(markdown_cell(row[i].text));
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

row_stream::row_stream(std::ostream& out, output_format format, std::vector<column> columns)
    : m_out(out), m_format(format), m_columns(std::move(columns)) {
  if (m_format != output_format::csv && m_format != output_format::json)
    throw std::logic_error("row_stream: csv and json alone are written row by row");
  if (m_format == output_format::json) {
    m_out << '[';
    return;
  }
  for (std::size_t i = 0; i < m_columns.size(); ++i) m_out << (i > 0 ? "," : "") << csv_cell(key_of(m_columns[i]));
  m_out << '\n';
}

void row_stream::add_row(const std::vector<cell>& cells) {
  if (cells.size() > m_columns.size()) throw std::logic_error("row_stream: a row has more cells than columns");
  static const nlohmann::json k_null;
  auto value = [&](std::size_t i) -> const nlohmann::json& { return i < cells.size() ? cells[i].value : k_null; };
  if (m_format == output_format::json) {
    nlohmann::ordered_json record = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < m_columns.size(); ++i) record[key_of(m_columns[i])] = value(i);
    m_out << (m_rows == 0 ? "\n" : ",\n") << record.dump();
  } else {
    for (std::size_t i = 0; i < m_columns.size(); ++i) m_out << (i > 0 ? "," : "") << csv_cell(csv_text(value(i)));
    m_out << '\n';
  }
  ++m_rows;
}

std::size_t row_stream::finish() {
  if (m_format == output_format::json) m_out << (m_rows == 0 ? "]\n" : "\n]\n");
  return m_rows;
}

} // namespace bb::query
