// A recursive-descent parser into a postfix program, and a stack machine that runs it: the grammar
// is small enough that a library (muparser computes in doubles, exact only below 2^53, and has no %)
// would cost more than it saves. Parsing once makes an `init:` formula over millions of elements
// cost a few operations per element.
#include "runner/config/expression.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <utility>

namespace bb::config {

expression_error::expression_error(const std::string& text, std::size_t offset, const std::string& what)
    : std::runtime_error("in '" + text + "': " + what + " at column " + std::to_string(offset + 1)),
      m_text(text),
      m_offset(offset),
      m_reason(what) {}

namespace {

using op = compiled_expression::op;
using code = compiled_expression::code;

class parser {
public:
  parser(const std::string& text, std::vector<op>& program, std::vector<std::string>& names)
      : m_text(text), m_program(program), m_names(names) {}

  void run() {
    skip();
    if (m_pos == m_text.size()) fail(m_pos, "the expression is empty");
    comparison();
    skip();
    if (m_pos != m_text.size()) fail(m_pos, "unexpected '" + std::string(1, m_text[m_pos]) + "'");
  }

private:
  const std::string& m_text;
  std::vector<op>& m_program;
  std::vector<std::string>& m_names;
  std::size_t m_pos = 0;

  [[noreturn]] void fail(std::size_t at, const std::string& what) const { throw expression_error(m_text, at, what); }

  void emit(code c, std::size_t at, std::int64_t value = 0) { m_program.push_back({c, value, at}); }

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

  void comparison() {
    additive();
    skip();
    const std::size_t at = m_pos;
    static constexpr std::pair<const char*, code> k_comparisons[] = {{"<=", code::le}, {">=", code::ge},
                                                                     {"==", code::eq}, {"!=", code::ne},
                                                                     {"<", code::lt},  {">", code::gt}};
    for (const auto& [token, c] : k_comparisons)
      if (eat(token)) {
        additive();
        emit(c, at);
        return;
      }
  }
  // operand (op operand)*, each op emitted after its right operand: left-associative.
  template <std::size_t N>
  void left_associative(void (parser::*operand)(), const std::pair<const char*, code> (&ops)[N]) {
    (this->*operand)();
    for (bool more = true; more;) {
      skip();
      const std::size_t at = m_pos;
      more = false;
      for (const auto& [token, c] : ops)
        if (eat(token)) {
          (this->*operand)();
          emit(c, at);
          more = true;
          break;
        }
    }
  }
  void additive() {
    static constexpr std::pair<const char*, code> k_ops[] = {{"+", code::add}, {"-", code::sub}};
    left_associative(&parser::term, k_ops);
  }
  void term() {
    static constexpr std::pair<const char*, code> k_ops[] = {{"*", code::mul}, {"/", code::div}, {"%", code::rem}};
    left_associative(&parser::unary, k_ops);
  }
  void unary() {
    skip();
    const std::size_t at = m_pos;
    if (eat("-")) {
      unary();
      emit(code::neg, at);
    } else if (eat("+")) {
      unary();
    } else {
      primary();
    }
  }
  void number() {
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
    emit(code::constant, at, v);
  }
  void call(const std::string& fn, std::size_t at) {
    std::size_t args = 1;
    comparison();
    while (eat(",")) {
      comparison();
      ++args;
    }
    expect(')');
    if (args != 2) fail(at, fn + " takes 2 arguments, got " + std::to_string(args));
    emit(fn == "min" ? code::min : fn == "max" ? code::max : code::ceil_div, at);
  }
  void primary() {
    skip();
    const std::size_t at = m_pos;
    if (m_pos >= m_text.size()) fail(at, "expected a number, a name or '(' before the end");
    const char c = m_text[m_pos];
    if (std::isdigit(static_cast<unsigned char>(c)) != 0) return number();
    if (c == '(') {
      ++m_pos;
      comparison();
      expect(')');
      return;
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
      const auto known = std::find(m_names.begin(), m_names.end(), name);
      emit(code::name, at, known - m_names.begin());
      if (known == m_names.end()) m_names.push_back(name);
      return;
    }
    fail(at, "expected a number, a name or '(', got '" + std::string(1, c) + "'");
  }
};

} // namespace

compiled_expression::compiled_expression(std::string text) : m_text(std::move(text)) {
  parser(m_text, m_program, m_names).run();
  std::size_t depth = 0;
  for (const op& o : m_program) {
    if (o.what == code::constant || o.what == code::name) {
      m_depth = std::max(m_depth, ++depth);
    } else if (o.what != code::neg) {
      --depth; // a binary operation: two in, one out
    }
  }
}

std::int64_t compiled_expression::operator()(const std::int64_t* values) const {
  constexpr std::size_t k_local = 32;
  std::int64_t local[k_local];
  std::vector<std::int64_t> heap(m_depth > k_local ? m_depth : 0);
  std::int64_t* const stack = m_depth > k_local ? heap.data() : local;
  std::size_t top = 0; // stack[top - 1] is the top
  const auto fail = [&](const op& o, const std::string& what) { throw expression_error(m_text, o.offset, what); };
  for (const op& o : m_program) {
    if (o.what == code::constant || o.what == code::name) {
      stack[top++] = o.what == code::constant ? o.value : values[o.value];
      continue;
    }
    if (o.what == code::neg) {
      if (__builtin_sub_overflow(std::int64_t{0}, stack[top - 1], &stack[top - 1])) fail(o, "64-bit integer overflow");
      continue;
    }
    const std::int64_t b = stack[--top];
    std::int64_t& a = stack[top - 1];
    switch (o.what) {
    case code::add:
      if (__builtin_add_overflow(a, b, &a)) fail(o, "64-bit integer overflow");
      break;
    case code::sub:
      if (__builtin_sub_overflow(a, b, &a)) fail(o, "64-bit integer overflow");
      break;
    case code::mul:
      if (__builtin_mul_overflow(a, b, &a)) fail(o, "64-bit integer overflow");
      break;
    case code::div:
    case code::rem:
      if (b == 0) fail(o, o.what == code::rem ? "remainder by zero" : "division by zero");
      if (a == std::numeric_limits<std::int64_t>::min() && b == -1) fail(o, "64-bit integer overflow");
      a = o.what == code::rem ? a % b : a / b;
      break;
    case code::lt: a = a < b ? 1 : 0; break;
    case code::le: a = a <= b ? 1 : 0; break;
    case code::gt: a = a > b ? 1 : 0; break;
    case code::ge: a = a >= b ? 1 : 0; break;
    case code::eq: a = a == b ? 1 : 0; break;
    case code::ne: a = a != b ? 1 : 0; break;
    case code::min: a = std::min(a, b); break;
    case code::max: a = std::max(a, b); break;
    case code::ceil_div: // for b > 0: rounds up toward +infinity
      if (b <= 0) fail(o, "ceil_div needs a positive divisor, got " + std::to_string(b));
      a = a / b + (a % b != 0 && a > 0 ? 1 : 0);
      break;
    default: break;
    }
  }
  return stack[0];
}

std::int64_t compiled_expression::evaluate(const name_lookup& lookup) const {
  std::vector<std::int64_t> values(m_names.size());
  for (std::size_t k = 0; k < m_names.size(); ++k) {
    const auto v = lookup(m_names[k]);
    if (!v) {
      const auto first = std::find_if(m_program.begin(), m_program.end(), [&](const op& o) {
        return o.what == code::name && o.value == static_cast<std::int64_t>(k);
      });
      throw expression_error(m_text, first->offset, "unknown name '" + m_names[k] + "'");
    }
    values[k] = *v;
  }
  return (*this)(values.data());
}

std::int64_t evaluate(const std::string& text, const name_lookup& names) {
  return compiled_expression(text).evaluate(names);
}

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

std::vector<std::string> expression_names(const std::string& text) { return compiled_expression(text).names(); }

} // namespace bb::config
