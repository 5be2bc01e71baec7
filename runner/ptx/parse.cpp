#include "runner/ptx/parse.hpp"

#include <cctype>
#include <cstdlib>
#include <optional>

namespace bb::ptx {

namespace {

struct token {
  std::string text;
  int line = 0;
};

bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == '%' || c == '$';
}

/// Words (names, opcodes, directives, numbers), strings and single punctuation characters;
/// comments dropped.
std::vector<token> tokenize(std::string_view s) {
  std::vector<token> out;
  int line = 1;
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      ++i;
    } else if (s.compare(i, 2, "//") == 0) {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (s.compare(i, 2, "/*") == 0) {
      const std::size_t end = s.find("*/", i + 2);
      for (std::size_t k = i; k < std::min(end, s.size()); ++k) line += s[k] == '\n' ? 1 : 0;
      i = end == std::string_view::npos ? s.size() : end + 2;
    } else if (c == '"') {
      const std::size_t end = s.find('"', i + 1);
      if (end == std::string_view::npos)
        throw ptx_error("PTX line " + std::to_string(line) + ": unterminated string", line);
      out.push_back({std::string(s.substr(i, end + 1 - i)), line});
      i = end + 1;
    } else if (name_char(c)) {
      std::size_t j = i;
      // "L1::no_allocate" in an opcode is one word
      while (j < s.size() && (name_char(s[j]) || (s.compare(j, 2, "::") == 0 && ++j != 0))) ++j;
      out.push_back({std::string(s.substr(i, j - i)), line});
      i = j;
    } else {
      out.push_back({std::string(1, c), line});
      ++i;
    }
  }
  return out;
}

[[noreturn]] void fail(int line, const std::string& what) {
  throw ptx_error("PTX line " + std::to_string(line) + ": " + what, line);
}

/// A PTX integer: decimal, 0x hex, 0 octal, 0b binary, with an optional U suffix; or a float
/// given as its bits (0f + 8 hex digits, 0d + 16).
bool parse_number(const std::string& t, operand& o) {
  if (t.empty() || std::isdigit(static_cast<unsigned char>(t[0])) == 0) return false;
  std::string s = t;
  if (s.size() > 2 && (s[1] == 'f' || s[1] == 'F' || s[1] == 'd' || s[1] == 'D') && s[0] == '0') {
    o.float_immediate = true;
    o.value = static_cast<std::int64_t>(std::strtoull(s.c_str() + 2, nullptr, 16));
    return true;
  }
  if (s.back() == 'U' || s.back() == 'u') s.pop_back();
  if (s.find('.') != std::string::npos) return false; // decimal floats are not PTX immediates
  char* end = nullptr;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
    o.value = static_cast<std::int64_t>(std::strtoull(s.c_str() + 2, &end, 2));
  else
    o.value = static_cast<std::int64_t>(std::strtoull(s.c_str(), &end, 0));
  return end != nullptr && *end == '\0';
}

class parser {
public:
  explicit parser(std::string_view text) : m_t(tokenize(text)) {}

  module run() {
    module m;
    while (!done()) {
      const token& t = peek();
      if (t.text == ".version" || t.text == ".target" || t.text == ".address_size") {
        skip_line();
      } else if (t.text == ".file") {
        read_file(m);
      } else if (t.text == ".section") {
        next();
        while (!done() && peek().text != "{") next();
        skip_block();
      } else if (t.text == ".visible" || t.text == ".weak" || t.text == ".extern") {
        const bool is_extern = t.text == ".extern";
        next();
        if (!done() && peek().text == ".shared") {
          m.shared.push_back(read_shared(is_extern));
        } else if (done() || (peek().text != ".entry" && peek().text != ".func" && peek().text != ".global" &&
                              peek().text != ".const")) {
          fail(t.line, "expected .entry, .func or a variable after " + t.text);
        }
      } else if (t.text == ".entry") {
        if (auto e = read_entry(m)) m.entries.push_back(std::move(*e));
      } else if (t.text == ".func") {
        skip_function();
      } else if (t.text == ".shared") {
        m.shared.push_back(read_shared(false));
      } else if (t.text == ".const") {
        read_constant(m);
      } else if (t.text == ".global") {
        // Module variables (printf's format strings, __device__ variables): read as the .const
        // ones, so their addresses are known; a store to one is an access outside every buffer.
        read_constant(m);
      } else if (t.text == ".pragma") {
        skip_statement();
      } else {
        fail(t.line, "unexpected '" + t.text + "' outside a function");
      }
    }
    return m;
  }

private:
  bool done() const { return m_i >= m_t.size(); }
  const token& peek() const { return m_t[m_i]; }
  const token& next() {
    if (done()) fail(m_t.empty() ? 0 : m_t.back().line, "unexpected end of the PTX text");
    return m_t[m_i++];
  }
  void expect(const std::string& what) {
    const token& t = next();
    if (t.text != what) fail(t.line, "expected '" + what + "', found '" + t.text + "'");
  }
  int number() {
    const token& t = next();
    operand o;
    if (!parse_number(t.text, o) || o.float_immediate) fail(t.line, "expected a number, found '" + t.text + "'");
    return static_cast<int>(o.value);
  }
  void skip_line() {
    const int line = next().line;
    while (!done() && peek().line == line) next();
  }
  void skip_statement() {
    while (!done() && peek().text != ";") next();
    if (!done()) next();
  }
  void skip_block() {
    int depth = 0;
    do {
      const token& t = next();
      depth += t.text == "{" ? 1 : t.text == "}" ? -1 : 0;
    } while (depth > 0);
  }
  /// A declaration ends at ';'; a definition is its body.
  void skip_function() {
    while (!done() && peek().text != ";" && peek().text != "{") next();
    if (!done() && peek().text == ";")
      next();
    else if (!done())
      skip_block();
  }

  void read_file(module& m) {
    const int line = next().line;
    const int index = number();
    const token& name = next();
    if (name.text.size() < 2 || name.text.front() != '"') fail(name.line, ".file expects a quoted name");
    m.files[index] = name.text.substr(1, name.text.size() - 2);
    while (!done() && peek().line == line) next(); // timestamp and size
  }

  /// [.extern] .shared [.align N] .TYPE name[N]? ;
  shared_variable read_shared(bool is_extern) {
    const int line = next().line; // .shared
    shared_variable v;
    int element = 0;
    while (!done() && peek().text != ";") {
      const token& t = next();
      if (t.text == ".align") {
        v.align = number();
      } else if (t.text.front() == '.' && type_bytes(t.text.substr(1)) > 0) {
        element = type_bytes(t.text.substr(1));
      } else if (t.text == "[") {
        if (peek().text == "]") {
          v.dynamic = true;
        } else {
          v.size = element * number();
        }
        expect("]");
      } else if (t.text.front() != '.') {
        v.name = t.text;
        v.size = element;
      }
    }
    expect(";");
    if (v.name.empty() || element == 0) fail(line, "a .shared declaration needs a type and a name");
    if (v.dynamic && !is_extern) fail(line, "shared array '" + v.name + "' has no size and is not .extern");
    if (is_extern) {
      v.dynamic = true;
      v.size = 0;
    }
    return v;
  }

  /// .const [.align N] .TYPE name[N]...[ = value or {values}] ; kept only when every initial
  /// value is a number (an address of another variable is not known before the run).
  void read_constant(module& m) {
    const int line = next().line; // .const or .global
    module_variable v;
    int element = 0, count = 1;
    bool readable = true;
    std::vector<operand> values;
    while (!done() && peek().text != ";") {
      const token& t = next();
      if (t.text == ".align") {
        v.align = number();
      } else if (t.text.front() == '.' && type_bytes(t.text.substr(1)) > 0) {
        element = type_bytes(t.text.substr(1));
      } else if (t.text == "[") {
        if (peek().text == "]")
          readable = false; // size from the initializer: not read
        else
          count *= number();
        expect("]");
      } else if (t.text == "=") {
        while (!done() && peek().text != ";") {
          const token& x = next();
          if (x.text == "{" || x.text == "}" || x.text == ",") continue;
          operand o;
          const bool negative = x.text == "-";
          if (!parse_number(negative ? next().text : x.text, o)) {
            readable = false;
            continue;
          }
          if (negative) o.value = -o.value;
          values.push_back(o);
        }
      } else if (t.text.front() != '.') {
        v.name = t.text;
      }
    }
    expect(";");
    if (v.name.empty() || element == 0) fail(line, "a .const or .global declaration needs a type and a name");
    if (!readable || values.size() > static_cast<std::size_t>(count)) return;
    v.bytes.assign(static_cast<std::size_t>(element * count), 0);
    for (std::size_t i = 0; i < values.size(); ++i) {
      std::uint64_t bits = static_cast<std::uint64_t>(values[i].value);
      if (values[i].float_immediate && element == 4 && bits > 0xffffffffull) bits &= 0xffffffffull;
      for (int b = 0; b < element && b < 8; ++b)
        v.bytes[i * static_cast<std::size_t>(element) + static_cast<std::size_t>(b)] = static_cast<std::uint8_t>(
            bits >> (8 * b));
    }
    m.constants.push_back(std::move(v));
  }

  /// .param [.align N] .TYPE [.ptr .space .align N] name[N]?
  parameter read_param(int offset) {
    const int line = next().line; // .param
    parameter p;
    int count = 1;
    bool ptr = false;
    while (!done() && peek().text != "," && peek().text != ")") {
      const token& t = next();
      if (t.text == ".align") {
        const int a = number();
        if (!ptr) p.align = a;
      } else if (t.text == ".ptr") {
        ptr = true;
      } else if (t.text.front() == '.' && type_bytes(t.text.substr(1)) > 0 && p.type.empty()) {
        p.type = t.text.substr(1);
      } else if (t.text == "[") {
        count = number();
        expect("]");
      } else if (t.text.front() != '.') {
        p.name = t.text;
      }
    }
    if (p.name.empty() || p.type.empty()) fail(line, "a .param needs a type and a name");
    const int element = type_bytes(p.type);
    if (p.align == 0) p.align = element;
    p.size = element * count;
    p.offset = (offset + p.align - 1) / p.align * p.align;
    return p;
  }

  /// An entry; nullopt for a declaration without a body (`.entry name(...);`, which nvcc writes
  /// before a module variable that refers to the kernel), whose definition follows later.
  std::optional<entry> read_entry(const module& m) {
    entry e;
    e.ptx_line = next().line; // .entry
    e.name = next().text;
    if (!done() && peek().text == "(") {
      next();
      int offset = 0;
      while (peek().text != ")") {
        if (peek().text != ".param") fail(peek().line, "expected .param, found '" + peek().text + "'");
        e.params.push_back(read_param(offset));
        offset = e.params.back().offset + e.params.back().size;
        if (peek().text == ",") next();
      }
      expect(")");
    }
    // .maxntid, .reqntid, .minnctapersm, ... up to the body, or the end of a declaration
    while (!done() && peek().text != "{" && peek().text != ";") next();
    if (!done() && peek().text == ";") {
      next();
      return std::nullopt;
    }
    expect("{");
    read_body(e, m);
    return e;
  }

  void read_body(entry& e, const module& m) {
    int depth = 1, file = 0, line = 0;
    while (depth > 0) {
      const token& t = peek();
      if (t.text == "{") {
        next();
        ++depth;
      } else if (t.text == "}") {
        next();
        --depth;
      } else if (t.text == ".loc") {
        next();
        file = number();
        line = number();
        while (!done() && peek().line == t.line) next(); // column, function_name, inlined_at
      } else if (t.text == ".reg") {
        read_registers(e);
      } else if (t.text == ".shared") {
        e.shared.push_back(read_shared(false));
      } else if (t.text == ".extern") {
        next();
        if (peek().text != ".shared") fail(t.line, "only .extern .shared is read inside a function");
        e.shared.push_back(read_shared(true));
      } else if (t.text == ".local" || t.text == ".param") {
        // A .param inside the body is a call's argument or result: thread-local scratch here.
        e.local.push_back(read_shared(false)); // the same declaration form
      } else if (t.text == ".pragma") {
        skip_statement();
      } else if (t.text.front() == '.') {
        fail(t.line, "unsupported directive '" + t.text + "' in function " + e.name);
      } else if (m_i + 1 < m_t.size() && m_t[m_i + 1].text == ":" && t.text != "@") {
        e.labels[t.text] = static_cast<int>(e.body.size());
        next();
        next();
      } else {
        e.body.push_back(read_instruction(file, line));
      }
    }
    (void)m;
  }

  void read_registers(entry& e) {
    next(); // .reg
    const token& type = next();
    if (type.text.front() != '.' || type_bytes(type.text.substr(1)) == 0)
      fail(type.line, "expected a register type, found '" + type.text + "'");
    while (peek().text != ";") {
      register_declaration r;
      r.type = type.text.substr(1);
      r.name = next().text;
      if (peek().text == "<") {
        next();
        r.count = number();
        expect(">");
      }
      e.registers.push_back(r);
      if (peek().text == ",") next();
    }
    expect(";");
  }

  instruction read_instruction(int file, int line) {
    instruction in;
    in.file = file;
    in.line = line;
    in.ptx_line = peek().line;
    if (peek().text == "@") {
      next();
      if (peek().text == "!") {
        next();
        in.guard_negated = true;
      }
      in.guard = next().text;
    }
    in.opcode = next().text;
    for (std::size_t start = 0;;) {
      const std::size_t dot = in.opcode.find('.', start);
      in.parts.push_back(in.opcode.substr(start, dot - start));
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    while (peek().text != ";") {
      in.operands.push_back(read_operand());
      if (peek().text == "," || peek().text == "|")
        next();
      else if (peek().text != ";")
        fail(peek().line, "expected ',' or ';' after an operand of " + in.opcode);
    }
    next();
    return in;
  }

  operand read_operand() {
    const token& t = next();
    operand o;
    if (t.text == "[") {
      o.kind = operand_kind::memory;
      if (peek().text != "]" && peek().text != "+" && peek().text != "-") {
        const token& base = next();
        operand n;
        if (parse_number(base.text, n))
          o.value = n.value;
        else
          o.name = base.text;
      }
      while (peek().text == "+" || peek().text == "-") {
        std::int64_t sign = 1;
        while (peek().text == "+" || peek().text == "-") sign *= next().text == "-" ? -1 : 1;
        operand n;
        const token& off = next();
        if (!parse_number(off.text, n)) fail(off.line, "expected an offset, found '" + off.text + "'");
        o.value += sign * n.value;
      }
      if (peek().text == ",") { // [tensor-map, {c0, c1, ...}]: the coordinates of a TMA copy
        next();
        o.elements.push_back(read_operand());
      }
      expect("]");
    } else if (t.text == "{" || t.text == "(") { // (...): a call's results or arguments
      const std::string close = t.text == "{" ? "}" : ")";
      o.kind = operand_kind::vector;
      while (peek().text != close) {
        o.elements.push_back(read_operand());
        if (peek().text == ",") next();
      }
      next();
    } else if (t.text == "!" && peek().text.front() == '%') {
      o = read_operand();
      o.negated = true;
    } else if (t.text == "-" || t.text == "!") {
      o = read_operand();
      if (o.kind != operand_kind::immediate) fail(t.line, "'" + t.text + "' before a non-constant operand");
      o.value = t.text == "-" ? -o.value : (o.value == 0 ? 1 : 0);
    } else if (t.text == "_") {
      o.kind = operand_kind::sink;
    } else if (parse_number(t.text, o)) {
      o.kind = operand_kind::immediate;
    } else if (t.text.front() == '%') {
      o.kind = operand_kind::reg;
      o.name = t.text;
    } else if (name_char(t.text.front())) {
      o.kind = operand_kind::symbol;
      o.name = t.text;
    } else {
      fail(t.line, "unexpected '" + t.text + "' in an operand");
    }
    return o;
  }

  std::vector<token> m_t;
  std::size_t m_i = 0;
};

} // namespace

int type_bytes(std::string_view type) {
  if (type == "pred" || type == "b8" || type == "u8" || type == "s8") return 1;
  if (type == "b16" || type == "u16" || type == "s16" || type == "f16") return 2;
  if (type == "b32" || type == "u32" || type == "s32" || type == "f32" || type == "f16x2" || type == "bf16x2") return 4;
  if (type == "b64" || type == "u64" || type == "s64" || type == "f64") return 8;
  if (type == "b128") return 16;
  return 0;
}

int entry::param_bytes() const { return params.empty() ? 0 : params.back().offset + params.back().size; }

const entry& module::find(std::string_view name) const {
  std::string names;
  for (const entry& e : entries) {
    if (e.name == name) return e;
    names += (names.empty() ? "" : ", ") + e.name;
  }
  throw std::out_of_range("no .entry '" + std::string(name) + "' in the PTX (entries: " + names + ")");
}

module parse(std::string_view text) { return parser(text).run(); }

} // namespace bb::ptx
