#pragma once
/// One checked reading of every number a command-line option takes: finite, in range, whole where
/// a count is meant, and refused in words ("--time-limit must be a number of seconds from 0.001 to
/// 86400, got 'nan'") rather than with a parser's text.
#include <cstdint>
#include <limits>
#include <string>

namespace bb {

/// What a number-taking option admits.
struct number_rule {
  double min = 0;
  double max = std::numeric_limits<double>::infinity(); ///< infinity: no upper bound
  bool whole = true;                                    ///< an integer is meant (a count, an id, an index)
  std::string unit;                                     ///< "seconds", "microseconds"; "" for a plain count
  std::string words;                                    ///< overrides the words made from the above

  /// A whole number from `lo` to `hi` (hi infinite: "at least lo").
  static number_rule integer(double lo, double hi = std::numeric_limits<double>::infinity(), std::string unit = "");
  /// A real number from `lo` to `hi`.
  static number_rule real(double lo, double hi, std::string unit = "");
  /// The same rule with its own words, e.g. "a run id (a whole number, 1 or more)".
  number_rule said(std::string w) const;
  /// "a whole number from 1 to 100000", "a number of seconds from 0.001 to 86400".
  std::string describe() const;
};

/// `text` as `rule` admits it, or a usage_error "OPTION must be WORDS, got 'TEXT'". Leading and
/// trailing spaces, hex, nan, inf, a fraction where a whole number is meant and anything past the
/// number ("10s") are refused.
double parse_number(const std::string& option, const std::string& text, const number_rule& rule);

/// parse_number for whole numbers, as an integer.
std::int64_t parse_integer(const std::string& option, const std::string& text, const number_rule& rule);

/// `value` as the shortest text that reads back the same: 0.001, 86400, 1e+30.
std::string number_text(double value);

} // namespace bb
