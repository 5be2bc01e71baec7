#include "runner/common/number.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "runner/common/error.hpp"

namespace bb {

number_rule number_rule::integer(double lo, double hi, std::string unit) { return {lo, hi, true, std::move(unit), ""}; }

number_rule number_rule::real(double lo, double hi, std::string unit) { return {lo, hi, false, std::move(unit), ""}; }

number_rule number_rule::said(std::string w) const {
  number_rule r = *this;
  r.words = std::move(w);
  return r;
}

std::string number_text(double value) {
  if (std::isfinite(value) && value == std::trunc(value) && std::fabs(value) < 1e15)
    return fmt::format("{}", static_cast<std::int64_t>(value));
  return fmt::format("{}", value);
}

std::string number_rule::describe() const {
  if (!words.empty()) return words;
  std::string what = whole ? "a whole number" : "a number";
  if (!unit.empty()) what += " of " + unit;
  if (std::isinf(max)) return what + (min == 0 ? ", 0 or more" : ", " + number_text(min) + " or more");
  return what + " from " + number_text(min) + " to " + number_text(max);
}

namespace {

[[noreturn]] void refuse(const std::string& option, const std::string& text, const number_rule& rule) {
  std::string shown = text.size() > 40 ? text.substr(0, 40) + "..." : text;
  throw usage_error(option + " must be " + rule.describe() + ", got '" + shown + "'");
}

} // namespace

double parse_number(const std::string& option, const std::string& text, const number_rule& rule) {
  // Digits, one sign, a point and an exponent only: strtod alone would take "nan", "inf", "0x10"
  // and leading spaces.
  bool digit = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c >= '0' && c <= '9')
      digit = true;
    else if (c != '.' && c != '-' && c != '+' && c != 'e' && c != 'E')
      refuse(option, text, rule);
  }
  if (!digit) refuse(option, text, rule);
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v)) refuse(option, text, rule);
  if (rule.whole && v != std::trunc(v)) refuse(option, text, rule);
  if (v < rule.min || v > rule.max) refuse(option, text, rule);
  return v;
}

std::int64_t parse_integer(const std::string& option, const std::string& text, const number_rule& rule) {
  number_rule r = rule;
  r.whole = true;
  const double v = parse_number(option, text, r);
  if (std::fabs(v) > 9.0e15) refuse(option, text, rule); // past what a double holds exactly
  // Exact for large ids: read the digits again as an integer.
  errno = 0;
  char* end = nullptr;
  const long long i = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str() + text.size() && errno == 0) return i;
  return static_cast<std::int64_t>(v); // "1e3"
}

} // namespace bb
