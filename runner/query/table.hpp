#pragma once
/// A table of text cells written as aligned text, a GitHub markdown table, or CSV: the one place
/// that knows those formats, so every query command prints all three alike.
#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace bb::query {

/// How a query command prints: aligned text, a GitHub markdown table, or CSV.
enum class output_format { table, markdown, csv };

/// "table", "markdown" (or "md") or "csv"; throws bb::usage_error naming the choices otherwise.
output_format parse_format(std::string_view name);

/// Text left, numbers right.
enum class align { left, right };

/// A column's heading and alignment; its width follows the widest cell.
struct column {
  std::string header;
  align alignment = align::left;
};

/// Rows of already formatted cells, printed in any output_format.
class text_table {
public:
  explicit text_table(std::vector<column> columns);

  /// A row with one cell per column; missing cells are empty, extra ones are an error.
  void add_row(std::vector<std::string> cells);
  /// Rows added so far, the header not counted.
  [[nodiscard]] std::size_t rows() const noexcept { return m_rows.size(); }

  /// table: columns sized to content, two spaces apart, a dashed rule under the header.
  /// markdown: a GitHub table, numbers right-aligned, `|` escaped. csv: RFC 4180 quoting, \n line
  /// ends, no padding.
  void write(std::ostream& out, output_format format) const;

private:
  [[nodiscard]] std::vector<std::size_t> widths() const;
  void write_text(std::ostream& out) const;
  void write_markdown(std::ostream& out) const;
  void write_csv(std::ostream& out) const;

  std::vector<column> m_columns;
  std::vector<std::vector<std::string>> m_rows;
};

/// Display width of UTF-8 text: code points, so "µs" is two wide.
std::size_t display_width(std::string_view text);

} // namespace bb::query
