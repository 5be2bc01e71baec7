#pragma once
/// Integer expressions over an experiment's axes, for source variants' launch geometry, buffer
/// counts, scalars and defines: `ceil_div(n, tile)`, `n * n`, `tile * (tile + pad) * 4`.
/// Exact 64-bit signed arithmetic: + - * / % (C's truncating division), unary -, parentheses,
/// min(a, b), max(a, b), ceil_div(a, b), and comparisons (< <= > >= == !=, giving 0 or 1).
/// Overflow and division by zero are errors, never wrapped values. No CUDA headers.
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace bb::config {

/// A bad expression or a failed evaluation: what, and the 0-based offset into the text.
class expression_error : public std::runtime_error {
public:
  expression_error(const std::string& text, std::size_t offset, const std::string& what);
  [[nodiscard]] const std::string& text() const noexcept { return m_text; }
  [[nodiscard]] std::size_t offset() const noexcept { return m_offset; }
  [[nodiscard]] const std::string& reason() const noexcept { return m_reason; }

private:
  std::string m_text;
  std::size_t m_offset;
  std::string m_reason;
};

/// A name's value, or nullopt when the name is unknown (an error naming it).
using name_lookup = std::function<std::optional<std::int64_t>(const std::string& name)>;

/// An expression parsed once and evaluated many times (an `init:` formula, once per element):
/// names become slots, filled in the order names() gives.
class compiled_expression {
public:
  enum class code : std::uint8_t {
    constant,
    name,
    add,
    sub,
    mul,
    div,
    rem,
    neg,
    lt,
    le,
    gt,
    ge,
    eq,
    ne,
    min,
    max,
    ceil_div
  };
  struct op {
    code what;
    std::int64_t value; ///< constant: the number; name: its slot
    std::size_t offset; ///< where in the text, for errors
  };

  /// Throws expression_error on a syntax error.
  explicit compiled_expression(std::string text);
  [[nodiscard]] const std::string& text() const noexcept { return m_text; }
  /// The names used, in order of first use: values[k] below is the value of names()[k].
  [[nodiscard]] const std::vector<std::string>& names() const noexcept { return m_names; }
  /// The value with these names' values; overflow or division by zero throw expression_error.
  [[nodiscard]] std::int64_t operator()(const std::int64_t* values) const;
  /// The value with each name looked up (an unknown name is an error at its first use).
  [[nodiscard]] std::int64_t evaluate(const name_lookup& names) const;

private:
  std::string m_text;
  std::vector<op> m_program; ///< postfix
  std::vector<std::string> m_names;
  std::size_t m_depth = 0; ///< the deepest the stack gets
};

/// Evaluates `text`. Throws expression_error ("in 'n * m': unknown name 'm' at column 5").
std::int64_t evaluate(const std::string& text, const name_lookup& names);

/// Parses without evaluating: throws expression_error on a syntax error. Returns the names used,
/// in order of first use.
std::vector<std::string> expression_names(const std::string& text);

/// "ceil_div(n, tile), 8" -> {"ceil_div(n, tile)", "8"}: split at commas outside parentheses, each
/// part trimmed (a launch geometry written as one plain YAML string).
std::vector<std::string> split_top_level(const std::string& text);

} // namespace bb::config
