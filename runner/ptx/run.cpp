#include "runner/ptx/run.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <set>
#include <unordered_map>

namespace bb::ptx {

namespace {

/// Where generic addresses (cvta.shared, ld without a state space) see the shared window: far
/// above any buffer a caller registers, so that one address is never both.
constexpr std::uint64_t k_generic_shared = 0x7e00'0000'0000ull;

struct type_info {
  int bits = 0;
  bool is_signed = false;
  bool is_float = false;
};

type_info type_of(std::string_view t) {
  const int bytes = type_bytes(t);
  if (bytes == 0 || t == "f16" || t == "f16x2" || t == "bf16x2" || t == "b128") return {};
  return {t == "pred" ? 1 : bytes * 8, t.front() == 's', t.front() == 'f'};
}

/// The high 64 bits of the 128-bit product a x b.
std::uint64_t mul_hi64(std::uint64_t a, std::uint64_t b, bool is_signed) {
  const std::uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
  const std::uint64_t mid = a1 * b0 + ((a0 * b0) >> 32), mid2 = a0 * b1 + (mid & 0xffffffffu);
  std::uint64_t hi = a1 * b1 + (mid >> 32) + (mid2 >> 32);
  if (is_signed) hi -= (static_cast<std::int64_t>(a) < 0 ? b : 0) + (static_cast<std::int64_t>(b) < 0 ? a : 0);
  return hi;
}

std::uint64_t mask_of(int bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }
std::int64_t sext(std::uint64_t v, int bits) {
  if (bits >= 64) return static_cast<std::int64_t>(v);
  const std::uint64_t sign = 1ull << (bits - 1);
  return static_cast<std::int64_t>(((v & mask_of(bits)) ^ sign) - sign);
}
double to_float(std::uint64_t v, int bits) {
  return bits == 32 ? static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(v)))
                    : std::bit_cast<double>(v);
}
std::uint64_t from_float(double d, int bits) {
  return bits == 32 ? std::bit_cast<std::uint32_t>(static_cast<float>(d)) : std::bit_cast<std::uint64_t>(d);
}

enum class thread_state : std::uint8_t { running, at_barrier, exited };

struct thread {
  std::array<std::uint32_t, 3> tid{};
  std::uint32_t linear = 0;
  std::uint32_t pc = 0;
  thread_state state = thread_state::running;
  std::vector<std::uint64_t> regs;
  std::vector<std::uint32_t> arrivals; ///< per instruction
};

enum class space : std::uint8_t { generic, param, global, shared, local, constant };

class cta_runner {
public:
  cta_runner(const module& m, const entry& e, const launch& l, global_memory& g) : m_m(m), m_e(e), m_l(l), m_global(g) {
    lay_out_shared();
    m_shared.assign(m_result.shared_bytes, 0);
    for (const parameter& p : e.params) m_params[p.name] = &p;
    if (l.params.size() < static_cast<std::size_t>(e.param_bytes()))
      throw ptx_error("the parameter buffer has " + std::to_string(l.params.size()) + " bytes; " + e.name + " takes " +
                          std::to_string(e.param_bytes()),
                      e.ptx_line);
  }

  cta_result run() {
    const auto& b = m_l.block;
    const std::uint32_t n = b[0] * b[1] * b[2];
    m_threads.resize(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      thread& t = m_threads[i];
      t.linear = i;
      t.tid = {i % b[0], i / b[0] % b[1], i / (b[0] * b[1])};
      t.arrivals.assign(m_e.body.size(), 0);
    }
    for (;;) {
      for (thread& t : m_threads)
        while (t.state == thread_state::running) step(t);
      bool any = false;
      for (thread& t : m_threads)
        if (t.state == thread_state::at_barrier) {
          t.state = thread_state::running;
          any = true;
        }
      if (!any) break;
    }
    return std::move(m_result);
  }

private:
  void lay_out_shared() {
    std::uint32_t end = 0, dynamic_align = 16;
    auto place = [&](const shared_variable& v) {
      if (v.dynamic) {
        dynamic_align = std::max(dynamic_align, static_cast<std::uint32_t>(v.align));
        return;
      }
      const auto a = static_cast<std::uint32_t>(std::max(v.align, 1));
      end = (end + a - 1) / a * a;
      m_shared_at[v.name] = end;
      end += static_cast<std::uint32_t>(v.size);
    };
    for (const shared_variable& v : m_m.shared) place(v);
    for (const shared_variable& v : m_e.shared) place(v);
    end = (end + dynamic_align - 1) / dynamic_align * dynamic_align;
    for (const auto* list : {&m_m.shared, &m_e.shared})
      for (const shared_variable& v : *list)
        if (v.dynamic) m_shared_at[v.name] = end;
    m_result.shared_bytes = end + m_l.dynamic_shared_bytes;
  }

  [[noreturn]] void fail(const instruction& in, const std::string& what) const {
    std::string where = "PTX line " + std::to_string(in.ptx_line);
    if (in.line > 0) {
      const auto f = m_m.files.find(in.file);
      where += " (" + (f == m_m.files.end() ? "file " + std::to_string(in.file) : f->second) + ":" +
               std::to_string(in.line) + ")";
    }
    throw ptx_error(where + ": " + what, in.ptx_line);
  }
  [[noreturn]] void unsupported(const instruction& in) const {
    fail(in, "unsupported instruction '" + in.opcode + "'");
  }

  int reg_index(const std::string& name) {
    const auto [it, added] = m_reg_index.try_emplace(name, static_cast<int>(m_reg_index.size()));
    return it->second;
  }
  std::uint64_t& reg(thread& t, const std::string& name) {
    const auto i = static_cast<std::size_t>(reg_index(name));
    if (t.regs.size() <= i) t.regs.resize(m_reg_index.size(), 0);
    return t.regs[i];
  }

  std::uint64_t special(const thread& t, const instruction& in, const std::string& name) const {
    static const std::map<std::string, int> k_names = {{"%tid", 0}, {"%ntid", 1}, {"%ctaid", 2}, {"%nctaid", 3}};
    const std::size_t dot = name.find('.');
    if (name == "%laneid") return t.linear % model::k_warp_lanes;
    if (name == "%warpid") return t.linear / model::k_warp_lanes;
    if (name == "%nwarpid")
      return (m_l.block[0] * m_l.block[1] * m_l.block[2] + model::k_warp_lanes - 1) / model::k_warp_lanes;
    if (dot == std::string::npos || dot + 2 != name.size()) fail(in, "unsupported register '" + name + "'");
    const auto k = k_names.find(name.substr(0, dot));
    const int axis = name[dot + 1] - 'x';
    if (k == k_names.end() || axis < 0 || axis > 2) fail(in, "unsupported register '" + name + "'");
    const auto a = static_cast<std::size_t>(axis);
    switch (k->second) {
    case 0: return t.tid[a];
    case 1: return m_l.block[a];
    case 2: return m_l.cta[a];
    default: return m_l.grid[a];
    }
  }

  bool is_special(const std::string& name) const {
    return name.rfind("%tid.", 0) == 0 || name.rfind("%ntid.", 0) == 0 || name.rfind("%ctaid.", 0) == 0 ||
           name.rfind("%nctaid.", 0) == 0 || name == "%laneid" || name == "%warpid" || name == "%nwarpid";
  }

  /// The value of a source operand, in `bits` bits.
  std::uint64_t value(thread& t, const instruction& in, const operand& o, int bits) {
    std::uint64_t v = 0;
    switch (o.kind) {
    case operand_kind::reg: v = is_special(o.name) ? special(t, in, o.name) : reg(t, o.name); break;
    case operand_kind::immediate: v = static_cast<std::uint64_t>(o.value); break;
    case operand_kind::symbol: {
      const auto s = m_shared_at.find(o.name);
      if (s == m_shared_at.end()) fail(in, "the address of '" + o.name + "' is not known (only shared variables)");
      v = s->second;
      break;
    }
    case operand_kind::vector: { // packing: the elements from the lowest bits up
      const int each = bits / static_cast<int>(o.elements.size());
      for (std::size_t i = 0; i < o.elements.size(); ++i)
        v |= value(t, in, o.elements[i], each) << (static_cast<int>(i) * each);
      break;
    }
    default: fail(in, "an operand of " + in.opcode + " is not a value");
    }
    return v & mask_of(bits);
  }

  void set(thread& t, const instruction& in, const operand& o, std::uint64_t v, int bits) {
    if (o.kind == operand_kind::sink) return;
    if (o.kind == operand_kind::vector) {
      const int each = bits / static_cast<int>(o.elements.size());
      for (std::size_t i = 0; i < o.elements.size(); ++i)
        set(t, in, o.elements[i], v >> (static_cast<int>(i) * each), each);
      return;
    }
    if (o.kind != operand_kind::reg || is_special(o.name))
      fail(in, "the destination of " + in.opcode + " is not a register");
    reg(t, o.name) = v & mask_of(bits);
  }

  const operand& arg(const instruction& in, std::size_t i) const {
    if (i >= in.operands.size()) fail(in, in.opcode + " has too few operands");
    return in.operands[i];
  }

  /// The type named by the last part of the opcode.
  type_info last_type(const instruction& in) const {
    const type_info ty = type_of(in.parts.back());
    if (ty.bits == 0) unsupported(in);
    return ty;
  }

  /// Stops on any part between the first and the last that is not in `allowed`.
  void only(const instruction& in, std::initializer_list<std::string_view> allowed) const {
    for (std::size_t i = 1; i + 1 < in.parts.size(); ++i)
      if (std::find(allowed.begin(), allowed.end(), in.parts[i]) == allowed.end()) unsupported(in);
  }
  bool has(const instruction& in, std::string_view part) const {
    return std::find(in.parts.begin() + 1, in.parts.end(), part) != in.parts.end();
  }

  void step(thread& t) {
    if (m_result.steps++ >= m_l.step_budget)
      fail(m_e.body[t.pc], "the step budget of " + std::to_string(m_l.step_budget) +
                               " instructions per CTA is spent (a loop that does not end?)");
    if (t.pc >= m_e.body.size()) {
      t.state = thread_state::exited; // fell off the end: as ret
      return;
    }
    const instruction& in = m_e.body[t.pc];
    const std::uint32_t n = t.arrivals[t.pc]++;
    if (!in.guard.empty() && ((reg(t, in.guard) != 0) == in.guard_negated)) {
      ++t.pc;
      return;
    }
    const std::string& op = in.parts[0];
    if (op == "bra") {
      only(in, {});
      const operand& target = arg(in, 0);
      const auto label = m_e.labels.find(target.name);
      if (label == m_e.labels.end()) fail(in, "no label '" + target.name + "'");
      t.pc = static_cast<std::uint32_t>(label->second);
      return;
    }
    ++t.pc;
    if (op == "ret" || op == "exit") {
      t.state = thread_state::exited;
    } else if ((op == "bar" || op == "barrier") && in.parts.size() >= 2 && in.parts[1] == "sync") {
      if (in.parts.size() > 3 || (in.parts.size() == 3 && in.parts[2] != "aligned") || in.operands.size() > 1)
        unsupported(in); // barriers for part of the CTA
      t.state = thread_state::at_barrier;
    } else if (op == "membar" || op == "fence") {
      // memory order: threads run one at a time, every store is seen at once
    } else if (op == "ld" || op == "st" || op == "atom" || op == "red") {
      memory(t, in, n);
    } else {
      arithmetic(t, in);
    }
  }

  void arithmetic(thread& t, const instruction& in) {
    const std::string& op = in.parts[0];
    if (op == "mov") {
      only(in, {});
      const int bits = last_type(in).bits;
      set(t, in, arg(in, 0), value(t, in, arg(in, 1), bits), bits);
    } else if (op == "setp") {
      setp(t, in);
    } else if (op == "selp") {
      only(in, {});
      const int bits = last_type(in).bits;
      const std::uint64_t c = value(t, in, arg(in, 3), 1);
      set(t, in, arg(in, 0), value(t, in, arg(in, c != 0 ? 1 : 2), bits), bits);
    } else if (op == "cvt") {
      convert(t, in);
    } else if (op == "cvta") {
      // cvta.shared / cvta.to.shared move between the generic and the shared window; global
      // addresses are generic ones.
      const bool to = in.parts.size() > 1 && in.parts[1] == "to";
      const std::size_t at = to ? 2 : 1;
      if (in.parts.size() != at + 2) unsupported(in);
      const std::string& where = in.parts[at];
      const int bits = last_type(in).bits;
      std::uint64_t v = value(t, in, arg(in, 1), bits);
      if (where == "shared")
        v = to ? v - k_generic_shared : v + k_generic_shared;
      else if (where != "global")
        unsupported(in);
      set(t, in, arg(in, 0), v, bits);
    } else if (op == "and" || op == "or" || op == "xor" || op == "not" || op == "cnot" || op == "shl" || op == "shr") {
      only(in, {});
      bitwise(t, in);
    } else if (op == "fma" || op == "add" || op == "sub" || op == "mul" || op == "mad" || op == "div" || op == "rem" ||
               op == "min" || op == "max" || op == "neg" || op == "abs") {
      const type_info ty = last_type(in);
      if (ty.is_float)
        floating(t, in, ty);
      else
        integer(t, in, ty);
    } else {
      unsupported(in);
    }
  }

  void bitwise(thread& t, const instruction& in) {
    const std::string& op = in.parts[0];
    const type_info ty = last_type(in);
    const int bits = ty.bits;
    const std::uint64_t a = value(t, in, arg(in, 1), bits);
    std::uint64_t r = 0;
    if (op == "not")
      r = ~a;
    else if (op == "cnot")
      r = a == 0 ? 1 : 0;
    else if (op == "shl" || op == "shr") {
      const std::uint64_t s = value(t, in, arg(in, 2), 32);
      if (op == "shl")
        r = s >= static_cast<std::uint64_t>(bits) ? 0 : a << s;
      else if (ty.is_signed)
        r = static_cast<std::uint64_t>(sext(a, bits) >> std::min<std::uint64_t>(s, 63));
      else
        r = s >= static_cast<std::uint64_t>(bits) ? 0 : a >> s;
    } else {
      const std::uint64_t b = value(t, in, arg(in, 2), bits);
      r = op == "and" ? a & b : op == "or" ? a | b : a ^ b;
    }
    set(t, in, arg(in, 0), r, bits);
  }

  void integer(thread& t, const instruction& in, type_info ty) {
    const std::string& op = in.parts[0];
    const int bits = ty.bits;
    const bool wide = has(in, "wide"), hi = has(in, "hi");
    if (op == "mul" || op == "mad")
      only(in, {"lo", "hi", "wide"});
    else
      only(in, {});
    auto get = [&](std::size_t i) {
      const std::uint64_t v = value(t, in, arg(in, i), bits);
      return ty.is_signed ? static_cast<std::uint64_t>(sext(v, bits)) : v;
    };
    const std::uint64_t a = get(1);
    std::uint64_t r = 0;
    int out_bits = bits;
    if (op == "neg")
      r = 0 - a;
    else if (op == "abs")
      r = ty.is_signed && static_cast<std::int64_t>(a) < 0 ? 0 - a : a;
    else {
      const std::uint64_t b = get(2);
      if (op == "add")
        r = a + b;
      else if (op == "sub")
        r = a - b;
      else if (op == "min" || op == "max") {
        const bool less = ty.is_signed ? static_cast<std::int64_t>(a) < static_cast<std::int64_t>(b) : a < b;
        r = (op == "min") == less ? a : b;
      } else if (op == "div" || op == "rem") {
        if ((b & mask_of(bits)) == 0) fail(in, "division by zero");
        if (ty.is_signed) {
          const auto sa = static_cast<std::int64_t>(a), sb = static_cast<std::int64_t>(b);
          r = static_cast<std::uint64_t>(op == "div" ? sa / sb : sa % sb);
        } else {
          r = op == "div" ? a / b : a % b;
        }
      } else { // mul, mad
        if (wide && bits > 32) unsupported(in);
        if (hi) {
          r = bits == 64 ? mul_hi64(a, b, ty.is_signed)
                         : (ty.is_signed ? static_cast<std::uint64_t>(static_cast<std::int64_t>(a * b) >> bits)
                                         : (a * b) >> bits); // the product of two 32-bit values fits
        } else {
          r = a * b; // the operands are sign- or zero-extended, so the wide product is exact
        }
        if (wide) out_bits = 2 * bits;
        if (op == "mad") {
          const std::uint64_t c = value(t, in, arg(in, 3), out_bits);
          r += c;
        }
      }
    }
    set(t, in, arg(in, 0), r, out_bits);
  }

  void floating(thread& t, const instruction& in, type_info ty) {
    const std::string& op = in.parts[0];
    only(in, {"rn", "rz", "rm", "rp", "ftz", "approx", "full"});
    const int bits = ty.bits;
    auto get = [&](std::size_t i) { return to_float(value(t, in, arg(in, i), bits), bits); };
    auto round = [&](double d) { return bits == 32 ? static_cast<double>(static_cast<float>(d)) : d; };
    const double a = get(1);
    double r = 0;
    if (op == "neg")
      r = -a;
    else if (op == "abs")
      r = std::fabs(a);
    else {
      const double b = get(2);
      if (op == "add")
        r = a + b;
      else if (op == "sub")
        r = a - b;
      else if (op == "mul")
        r = a * b;
      else if (op == "div")
        r = a / b;
      else if (op == "min")
        r = std::fmin(a, b);
      else if (op == "max")
        r = std::fmax(a, b);
      else if (op == "fma" || op == "mad") {
        const double c = get(3);
        r = bits == 32
                ? static_cast<double>(std::fma(static_cast<float>(a), static_cast<float>(b), static_cast<float>(c)))
                : std::fma(a, b, c);
      } else {
        unsupported(in);
      }
    }
    set(t, in, arg(in, 0), from_float(round(r), bits), bits);
  }

  void setp(thread& t, const instruction& in) {
    // setp.CMP[.BOOLOP].TYPE p[|q], a, b[, c]
    if (in.parts.size() < 3 || in.parts.size() > 4) unsupported(in);
    const type_info ty = last_type(in);
    const std::string& cmp = in.parts[1];
    const std::string bool_op = in.parts.size() == 4 ? in.parts[2] : "";
    // With p|q the parser gives four operands before c: p, q, a, b.
    const bool two = (bool_op.empty() && in.operands.size() == 4) || (!bool_op.empty() && in.operands.size() == 5);
    const std::size_t ai = two ? 2 : 1;
    const std::uint64_t a = value(t, in, arg(in, ai), ty.bits), b = value(t, in, arg(in, ai + 1), ty.bits);
    bool r = false;
    if (ty.is_float) {
      const double x = to_float(a, ty.bits), y = to_float(b, ty.bits);
      const bool nan = std::isnan(x) || std::isnan(y);
      const bool unordered = cmp.size() == 3 && cmp.back() == 'u'; // equ, neu, ltu, ...
      const std::string base = unordered ? cmp.substr(0, 2) : cmp;
      if (base == "eq")
        r = x == y;
      else if (base == "ne")
        r = x != y && !nan;
      else if (base == "lt")
        r = x < y;
      else if (base == "le")
        r = x <= y;
      else if (base == "gt")
        r = x > y;
      else if (base == "ge")
        r = x >= y;
      else if (cmp == "num")
        r = !nan;
      else if (cmp == "nan")
        r = nan;
      else
        unsupported(in);
      if (unordered) r = r || nan;
    } else {
      const std::int64_t sa = sext(a, ty.bits), sb = sext(b, ty.bits);
      const bool s = ty.is_signed;
      if (cmp == "eq")
        r = a == b;
      else if (cmp == "ne")
        r = a != b;
      else if (cmp == "lt")
        r = s ? sa < sb : a < b;
      else if (cmp == "le")
        r = s ? sa <= sb : a <= b;
      else if (cmp == "gt")
        r = s ? sa > sb : a > b;
      else if (cmp == "ge")
        r = s ? sa >= sb : a >= b;
      else if (cmp == "lo")
        r = a < b;
      else if (cmp == "ls")
        r = a <= b;
      else if (cmp == "hi")
        r = a > b;
      else if (cmp == "hs")
        r = a >= b;
      else
        unsupported(in);
    }
    bool q = !r;
    if (!bool_op.empty()) {
      const bool c = value(t, in, arg(in, ai + 2), 1) != 0;
      if (bool_op == "and")
        r = r && c, q = q && c;
      else if (bool_op == "or")
        r = r || c, q = q || c;
      else if (bool_op == "xor")
        r = r != c, q = q != c;
      else
        unsupported(in);
    }
    set(t, in, arg(in, 0), r ? 1 : 0, 1);
    if (two) set(t, in, arg(in, 1), q ? 1 : 0, 1);
  }

  void convert(thread& t, const instruction& in) {
    // cvt[.rounding][.ftz][.sat].DST.SRC
    if (in.parts.size() < 3) unsupported(in);
    const type_info dst = type_of(in.parts[in.parts.size() - 2]), src = type_of(in.parts.back());
    if (dst.bits == 0 || src.bits == 0) unsupported(in);
    bool to_integer_rounding = false;
    for (std::size_t i = 1; i + 2 < in.parts.size(); ++i) {
      const std::string& p = in.parts[i];
      if (p == "rzi" || p == "rni" || p == "rmi" || p == "rpi")
        to_integer_rounding = true;
      else if (p != "rn" && p != "rz" && p != "rm" && p != "rp" && p != "ftz")
        unsupported(in);
    }
    const std::uint64_t v = value(t, in, arg(in, 1), src.bits);
    std::uint64_t r = 0;
    if (!dst.is_float && !src.is_float) {
      r = src.is_signed ? static_cast<std::uint64_t>(sext(v, src.bits)) : v;
    } else if (dst.is_float && src.is_float) {
      double d = to_float(v, src.bits);
      if (to_integer_rounding) d = std::nearbyint(d);
      r = from_float(d, dst.bits);
    } else if (dst.is_float) {
      r = from_float(src.is_signed ? static_cast<double>(sext(v, src.bits)) : static_cast<double>(v), dst.bits);
    } else {
      const double d = to_float(v, src.bits);
      const std::string& mode = in.parts[1];
      const double rounded = mode == "rni"   ? std::nearbyint(d)
                             : mode == "rmi" ? std::floor(d)
                             : mode == "rpi" ? std::ceil(d)
                                             : std::trunc(d);
      r = dst.is_signed ? static_cast<std::uint64_t>(static_cast<std::int64_t>(rounded))
                        : static_cast<std::uint64_t>(rounded);
    }
    set(t, in, arg(in, 0), r, dst.bits);
  }

  /// ld / st / atom / red: state space, vector count, element type; the shared ones traced.
  void memory(thread& t, const instruction& in, std::uint32_t n) {
    const std::string& op = in.parts[0];
    static const std::set<std::string_view> k_ignored = {"nc",
                                                         "ca",
                                                         "cg",
                                                         "cs",
                                                         "lu",
                                                         "cv",
                                                         "volatile",
                                                         "relaxed",
                                                         "acquire",
                                                         "release",
                                                         "acq_rel",
                                                         "weak",
                                                         "cta",
                                                         "gpu",
                                                         "sys",
                                                         "L1::no_allocate",
                                                         "L1::evict_last",
                                                         "L1::evict_first",
                                                         "L1::evict_normal"};
    space where = space::generic;
    int count = 1;
    std::string atom_op;
    for (std::size_t i = 1; i + 1 < in.parts.size(); ++i) {
      const std::string& p = in.parts[i];
      if (p == "param")
        where = space::param;
      else if (p == "global")
        where = space::global;
      else if (p == "shared")
        where = space::shared;
      else if (p == "local")
        where = space::local;
      else if (p == "const")
        where = space::constant;
      else if (p == "v2")
        count = 2;
      else if (p == "v4")
        count = 4;
      else if ((op == "atom" || op == "red") && atom_op.empty() &&
               (p == "add" || p == "and" || p == "or" || p == "xor" || p == "exch" || p == "cas" || p == "min" ||
                p == "max" || p == "inc" || p == "dec"))
        atom_op = p;
      else if (k_ignored.count(p) == 0)
        unsupported(in);
    }
    if (where == space::local || where == space::constant) unsupported(in);
    if ((op == "atom" || op == "red") && (atom_op.empty() || count != 1)) unsupported(in);
    const type_info ty = last_type(in);
    const int bytes = ty.bits == 1 ? 1 : ty.bits / 8, total = bytes * count;
    const operand& mem = arg(in, op == "ld" || op == "atom" ? 1 : 0);
    if (mem.kind != operand_kind::memory) fail(in, "expected a [address] operand");

    // The address, and the bytes behind it.
    std::uint64_t address = static_cast<std::uint64_t>(mem.value);
    std::uint8_t* at = nullptr;
    if (where == space::param) {
      const auto p = m_params.find(mem.name);
      if (p == m_params.end()) fail(in, "'" + mem.name + "' is not a parameter of " + m_e.name);
      address += static_cast<std::uint64_t>(p->second->offset);
      if (address + static_cast<std::uint64_t>(total) > m_l.params.size()) fail(in, "a load past the parameters");
      if (op != "ld") unsupported(in);
      at = const_cast<std::uint8_t*>(m_l.params.data()) + address; // read only
    } else {
      if (!mem.name.empty()) {
        const auto s = m_shared_at.find(mem.name);
        if (s != m_shared_at.end())
          address += s->second + (where == space::generic ? k_generic_shared : 0);
        else if (mem.name.front() == '%')
          address += reg(t, mem.name);
        else
          fail(in, "the address of '" + mem.name + "' is not known");
      }
      if (where == space::generic && address >= k_generic_shared &&
          address < k_generic_shared + m_result.shared_bytes) {
        where = space::shared;
        address -= k_generic_shared;
      }
      if (where == space::shared) {
        address &= 0xffffffffull;
        if (address + static_cast<std::uint64_t>(total) > m_shared.size())
          fail(in, "shared address " + std::to_string(address) + " + " + std::to_string(total) + " B is outside the " +
                       std::to_string(m_shared.size()) + " B of shared memory");
        if (address % static_cast<std::uint64_t>(total) != 0)
          fail(in, "shared address " + std::to_string(address) + " is not a multiple of " + std::to_string(total));
        at = m_shared.data() + address;
        shared_event ev;
        ev.warp = t.linear / model::k_warp_lanes;
        ev.lane = t.linear % model::k_warp_lanes;
        ev.instruction = t.pc - 1;
        ev.execution = n;
        ev.address = static_cast<std::uint32_t>(address);
        ev.width = total;
        ev.kind = op == "ld"   ? model::access_kind::load
                  : op == "st" ? model::access_kind::store
                               : model::access_kind::atom;
        m_result.events.push_back(ev);
      } else {
        at = m_global.find(address, static_cast<std::size_t>(total));
        if (at == nullptr)
          fail(in, "global address 0x" + hex(address) + " (" + std::to_string(total) +
                       " B) is in no buffer given to the run");
      }
    }

    auto load = [&](int i) {
      std::uint64_t v = 0;
      std::memcpy(&v, at + i * bytes, static_cast<std::size_t>(bytes));
      return v;
    };
    auto store = [&](int i, std::uint64_t v) { std::memcpy(at + i * bytes, &v, static_cast<std::size_t>(bytes)); };
    const int bits = bytes * 8;
    if (op == "ld") {
      const operand& d = arg(in, 0);
      if (count == 1)
        set(t, in, d, ty.is_signed ? static_cast<std::uint64_t>(sext(load(0), bits)) : load(0),
            d.kind == operand_kind::reg && ty.bits < 32 ? 32 : bits);
      else if (d.kind != operand_kind::vector || d.elements.size() != static_cast<std::size_t>(count))
        fail(in, "expected " + std::to_string(count) + " destinations");
      else
        for (int i = 0; i < count; ++i) set(t, in, d.elements[static_cast<std::size_t>(i)], load(i), bits);
    } else if (op == "st") {
      const operand& s = arg(in, 1);
      if (count == 1)
        store(0, value(t, in, s, bits));
      else if (s.kind != operand_kind::vector || s.elements.size() != static_cast<std::size_t>(count))
        fail(in, "expected " + std::to_string(count) + " values");
      else
        for (int i = 0; i < count; ++i) store(i, value(t, in, s.elements[static_cast<std::size_t>(i)], bits));
    } else {
      const std::size_t first = op == "atom" ? 2 : 1;
      const std::uint64_t old = load(0), b = value(t, in, arg(in, first), bits);
      std::uint64_t r = 0;
      if (atom_op == "add")
        r = ty.is_float ? from_float(to_float(old, bits) + to_float(b, bits), bits) : old + b;
      else if (atom_op == "and")
        r = old & b;
      else if (atom_op == "or")
        r = old | b;
      else if (atom_op == "xor")
        r = old ^ b;
      else if (atom_op == "exch")
        r = b;
      else if (atom_op == "cas")
        r = old == b ? value(t, in, arg(in, first + 1), bits) : old;
      else if (atom_op == "inc")
        r = old >= b ? 0 : old + 1;
      else if (atom_op == "dec")
        r = old == 0 || old > b ? b : old - 1;
      else if (ty.is_float)
        unsupported(in);
      else {
        const bool less = ty.is_signed ? sext(old, bits) < sext(b, bits) : old < b;
        r = (atom_op == "min") == less ? old : b;
      }
      store(0, r);
      if (op == "atom") set(t, in, arg(in, 0), old, bits);
    }
  }

  static std::string hex(std::uint64_t v) {
    static const char* k_digits = "0123456789abcdef";
    std::string s;
    do {
      s.insert(s.begin(), k_digits[v & 15]);
      v >>= 4;
    } while (v != 0);
    return s;
  }

  const module& m_m;
  const entry& m_e;
  const launch& m_l;
  global_memory& m_global;
  std::vector<std::uint8_t> m_shared;
  std::map<std::string, std::uint32_t> m_shared_at;
  std::map<std::string, const parameter*> m_params;
  std::unordered_map<std::string, int> m_reg_index;
  std::vector<thread> m_threads;
  cta_result m_result;
};

} // namespace

void global_memory::add(std::uint64_t address, std::vector<std::uint8_t> bytes) {
  const auto next = m_buffers.lower_bound(address);
  if (next != m_buffers.end() && next->first < address + bytes.size())
    throw std::invalid_argument("global buffers overlap");
  if (next != m_buffers.begin() && std::prev(next)->first + std::prev(next)->second.size() > address)
    throw std::invalid_argument("global buffers overlap");
  m_buffers[address] = std::move(bytes);
}

const std::vector<std::uint8_t>& global_memory::buffer(std::uint64_t address) const { return m_buffers.at(address); }

std::uint8_t* global_memory::find(std::uint64_t address, std::size_t size) {
  auto it = m_buffers.upper_bound(address);
  if (it == m_buffers.begin()) return nullptr;
  --it;
  if (address + size > it->first + it->second.size()) return nullptr;
  return it->second.data() + (address - it->first);
}

std::vector<std::uint8_t> pack_params(const entry& e, const std::vector<std::uint64_t>& values) {
  if (values.size() != e.params.size())
    throw std::invalid_argument(e.name + " takes " + std::to_string(e.params.size()) + " parameters, " +
                                std::to_string(values.size()) + " given");
  std::vector<std::uint8_t> out(static_cast<std::size_t>(e.param_bytes()), 0);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const parameter& p = e.params[i];
    std::memcpy(out.data() + p.offset, &values[i], static_cast<std::size_t>(std::min(p.size, 8)));
  }
  return out;
}

cta_result run_cta(const module& m, const entry& e, const launch& l, global_memory& global) {
  return cta_runner(m, e, l, global).run();
}

} // namespace bb::ptx
