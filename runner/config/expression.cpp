// A recursive-descent evaluator: the grammar is small enough that a library (muparser computes in
// doubles, exact only below 2^53, and has no %) would cost more than it saves.
#include "runner/config/expression.hpp"

#include <cctype>
#include <limits>

namespace bb::config {

expression_error::expression_error(const std::string& text, std::size_t offset, const std::string& what)
    : std::runtime_error("in '" + text + "': " + what + " at column " + std::to_string(offset + 1)),
      m_text(text),
      m_offset(offset),
      m_reason(what) {}

namespace {

class parser {
public:
  parser(const std::string& text, const name_lookup* names, std::vector<std::string>* used)
      : m_text(text), m_names(names), m_used(used) {}

  std::int64_t run() {
    skip();
    if (m_pos == m_text.size()) fail(m_pos, "the expression is empty");
    const std::int64_t v = comparison();
    skip();
    if (m_pos != m_text.size()) fail(m_pos, "unexpected '" + std::string(1, m_text[m_pos]) + "'");
    return v;
  }

private:
  const std::string& m_text;
  const name_lookup* m_names; ///< null: parse only
  std::vector<std::string>* m_used;
  std::size_t m_pos = 0;

  [[noreturn]] void fail(std::size_t at, const std::string& what) const { throw expression_error(m_text, at, what); }

  void skip() {
    while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos])) != 0) ++m_pos;
  }
  bool eat(const char* token) {
    skip();
    const std::string t(token);
    if (m_text.compare(m_pos, t.size(), t) != 0) return false;
    m_pos += t.size();
    return true;
  }
  void expect(char c) {
    skip();
    if (m_pos >= m_text.size() || m_text[m_pos] != c)
      fail(m_pos, std::string("expected '") + c + "'" +
                      (m_pos >= m_text.size() ? " before the end" : ", got '" + std::string(1, m_text[m_pos]) + "'"));
    ++m_pos;
  }

  std::int64_t checked(bool overflow, std::int64_t v, std::size_t at) const {
    if (overflow && m_names != nullptr) fail(at, "64-bit integer overflow");
    return v;
  }
  std::int64_t add(std::int64_t a, std::int64_t b, std::size_t at) const {
    std::int64_t r = 0;
    const bool overflow = __builtin_add_overflow(a, b, &r);
    return checked(overflow, r, at);
  }
  std::int64_t sub(std::int64_t a, std::int64_t b, std::size_t at) const {
    std::int64_t r = 0;
    const bool overflow = __builtin_sub_overflow(a, b, &r);
    return checked(overflow, r, at);
  }
  std::int64_t mul(std::int64_t a, std::int64_t b, std::size_t at) const {
    std::int64_t r = 0;
    const bool overflow = __builtin_mul_overflow(a, b, &r);
    return checked(overflow, r, at);
  }
  std::int64_t divide(std::int64_t a, std::int64_t b, std::size_t at, char op) const {
    if (m_names == nullptr) return 0;
    if (b == 0) fail(at, op == '%' ? "remainder by zero" : "division by zero");
    if (a == std::numeric_limits<std::int64_t>::min() && b == -1) fail(at, "64-bit integer overflow");
    return op == '%' ? a % b : a / b;
  }

  std::int64_t comparison() {
    const std::int64_t a = additive();
    if (eat("<=")) return a <= additive() ? 1 : 0;
    if (eat(">=")) return a >= additive() ? 1 : 0;
    if (eat("==")) return a == additive() ? 1 : 0;
    if (eat("!=")) return a != additive() ? 1 : 0;
    if (eat("<")) return a < additive() ? 1 : 0;
    if (eat(">")) return a > additive() ? 1 : 0;
    return a;
  }
  std::int64_t additive() {
    std::int64_t v = term();
    for (;;) {
      skip();
      const std::size_t at = m_pos;
      if (eat("+"))
        v = add(v, term(), at);
      else if (eat("-"))
        v = sub(v, term(), at);
      else
        return v;
    }
  }
  std::int64_t term() {
    std::int64_t v = unary();
    for (;;) {
      skip();
      const std::size_t at = m_pos;
      if (eat("*"))
        v = mul(v, unary(), at);
      else if (eat("/"))
        v = divide(v, unary(), at, '/');
      else if (eat("%"))
        v = divide(v, unary(), at, '%');
      else
        return v;
    }
  }
  std::int64_t unary() {
    skip();
    const std::size_t at = m_pos;
    if (eat("-")) return sub(0, unary(), at);
    if (eat("+")) return unary();
    return primary();
  }
  std::int64_t number() {
    const std::size_t at = m_pos;
    std::int64_t v = 0;
    while (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos])) != 0) {
      const int digit = m_text[m_pos] - '0';
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, digit, &v))
        fail(at, "the number does not fit in 64 bits");
      ++m_pos;
    }
    if (m_pos < m_text.size() && (std::isalpha(static_cast<unsigned char>(m_text[m_pos])) != 0 || m_text[m_pos] == '.'))
      fail(m_pos, "integers only: unexpected '" + std::string(1, m_text[m_pos]) + "' in a number");
    return v;
  }
  std::int64_t call(const std::string& fn, std::size_t at) {
    std::vector<std::int64_t> args{comparison()};
    while (eat(",")) args.push_back(comparison());
    expect(')');
    if (args.size() != 2) fail(at, fn + " takes 2 arguments, got " + std::to_string(args.size()));
    const std::int64_t a = args[0], b = args[1];
    if (fn == "min") return a < b ? a : b;
    if (fn == "max") return a > b ? a : b;
    // ceil_div(a, b) for b > 0: rounds up toward +infinity.
    if (m_names == nullptr) return 0;
    if (b <= 0) fail(at, "ceil_div needs a positive divisor, got " + std::to_string(b));
    const std::int64_t q = a / b;
    return (a % b != 0 && a > 0) ? q + 1 : q;
  }
  std::int64_t primary() {
    skip();
    const std::size_t at = m_pos;
    if (m_pos >= m_text.size()) fail(at, "expected a number, a name or '(' before the end");
    const char c = m_text[m_pos];
    if (std::isdigit(static_cast<unsigned char>(c)) != 0) return number();
    if (c == '(') {
      ++m_pos;
      const std::int64_t v = comparison();
      expect(')');
      return v;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_') {
      std::size_t end = m_pos;
      while (end < m_text.size() && (std::isalnum(static_cast<unsigned char>(m_text[end])) != 0 || m_text[end] == '_'))
        ++end;
      const std::string name = m_text.substr(m_pos, end - m_pos);
      m_pos = end;
      skip();
      if (m_pos < m_text.size() && m_text[m_pos] == '(') {
        if (name != "min" && name != "max" && name != "ceil_div")
          fail(at, "unknown function '" + name + "' (functions: min, max, ceil_div)");
        ++m_pos;
        return call(name, at);
      }
      if (m_used != nullptr) {
        bool seen = false;
        for (const auto& u : *m_used) seen = seen || u == name;
        if (!seen) m_used->push_back(name);
      }
      if (m_names == nullptr) return 0;
      const auto v = (*m_names)(name);
      if (!v) fail(at, "unknown name '" + name + "'");
      return *v;
    }
    fail(at, "expected a number, a name or '(', got '" + std::string(1, c) + "'");
  }
};

} // namespace

std::int64_t evaluate(const std::string& text, const name_lookup& names) { return parser(text, &names, nullptr).run(); }

std::vector<std::string> split_top_level(const std::string& text) {
  std::vector<std::string> parts{""};
  int depth = 0;
  for (const char c : text) {
    if (c == ',' && depth == 0) {
      parts.emplace_back();
      continue;
    }
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    parts.back() += c;
  }
  for (auto& p : parts) {
    const auto b = p.find_first_not_of(" \t");
    const auto e = p.find_last_not_of(" \t");
    p = b == std::string::npos ? std::string() : p.substr(b, e - b + 1);
  }
  return parts;
}

std::vector<std::string> expression_names(const std::string& text) {
  std::vector<std::string> used;
  parser(text, nullptr, &used).run();
  return used;
}

} // namespace bb::config
