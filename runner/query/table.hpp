#pragma once
/// The one writer of the results commands: a table written as aligned text, a GitHub markdown
/// table, CSV or JSON. Each cell carries the text a reader sees and the value a program reads, so
/// that the machine formats get every digit and JSON gets numbers, null and objects.
#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace bb::query {

/// How a query command prints: aligned text, a GitHub markdown table, CSV, or JSON.
enum class output_format { table, markdown, csv, json };

/// "table", "markdown" (or "md"), "csv" or "json"; throws bb::usage_error naming the choices otherwise.
output_format parse_format(std::string_view name);

/// The names parse_format() takes, for option checks and help text.
inline constexpr const char* k_format_names[] = {"table", "markdown", "csv", "json"};

/// True for the formats a program reads (csv, json): no headings, every digit.
constexpr bool for_programs(output_format f) { return f == output_format::csv || f == output_format::json; }

/// Text left, numbers right.
enum class align { left, right };

/// A column's heading and alignment; its width follows the widest cell. `key` names it in CSV's
/// header and in JSON records (the header when empty).
struct column {
  std::string header;
  align alignment = align::left;
  std::string key;
};

/// What a cell shows (`text`, in table and markdown) and holds (`value`, in CSV and JSON). A cell
/// made from text alone holds that text.
struct cell {
  cell() = default;
  cell(std::string text_) : text(text_), value(std::move(text_)) {} // NOLINT(google-explicit-constructor)
  cell(const char* text_) : cell(std::string(text_)) {}             // NOLINT(google-explicit-constructor)
  cell(std::string text_, nlohmann::json value_) : text(std::move(text_)), value(std::move(value_)) {}

  std::string text;
  nlohmann::json value; ///< null: empty in CSV, null in JSON
};

/// CSV's text for a value: strings as they are, numbers in their shortest exact form, null empty,
/// true and false as 1 and 0, objects and arrays as compact JSON.
std::string csv_text(const nlohmann::json& value);

/// Rows of cells, printed in any output_format.
class text_table {
public:
  explicit text_table(std::vector<column> columns);

  /// A row with one cell per column; missing cells are empty, extra ones are an error.
  void add_row(std::vector<cell> cells);
  /// Rows added so far, the header not counted.
  [[nodiscard]] std::size_t rows() const noexcept { return m_rows.size(); }

  /// table: columns sized to content, two spaces apart, a dashed rule under the header.
  /// markdown: a GitHub table, numbers right-aligned, `|` escaped. csv and json: as row_stream
  /// writes them (csv: the keys, then the values, RFC 4180 quoting, \n line ends, no padding;
  /// json: an array of records, one a line, keys in column order).
  void write(std::ostream& out, output_format format) const;

  /// The rows as JSON records, one object per row keyed by the columns' keys, for a command that
  /// puts them into a document of its own.
  [[nodiscard]] nlohmann::json records() const;

private:
  [[nodiscard]] std::vector<std::size_t> widths() const;
  void write_text(std::ostream& out) const;
  void write_markdown(std::ostream& out) const;

  std::vector<column> m_columns;
  std::vector<std::vector<cell>> m_rows;
};

/// Rows written as they come, for tables too long to hold in memory: csv (the header first) and
/// json (an array of records, keys in column order) alone; table and markdown need every row
/// first to size the columns, so they go through text_table.
class row_stream {
public:
  row_stream(std::ostream& out, output_format format, std::vector<column> columns);
  void add_row(const std::vector<cell>& cells);
  /// Ends the output (json's closing bracket); returns the rows written.
  std::size_t finish();

private:
  std::ostream& m_out;
  output_format m_format;
  std::vector<column> m_columns;
  std::size_t m_rows = 0;
};

/// Display width of UTF-8 text: code points, so "µs" is two wide.
std::size_t display_width(std::string_view text);

} // namespace bb::query
