// Decodes an entry once into program form: every opcode, modifier and operand is read here, so
// that run.cpp only computes. What cannot be decoded becomes opcode::unsupported with its message,
// raised only when a thread reaches it.
#include <algorithm>
#include <unordered_map>

#include "runner/ptx/run.hpp"

namespace bb::ptx {

namespace {

struct unsupported_here {
  std::string what;
};

[[noreturn]] void reject(std::string what) { throw unsupported_here{std::move(what)}; }

std::uint64_t mask_bits(int bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

/// An MMA operand type (mma.sync, wgmma) as the interpreter computes with it; bits 0 for others.
value_type matrix_element_type(const std::string& name) {
  if (name == "f16") return {16, type_class::f16};
  if (name == "bf16") return {16, type_class::bf16};
  if (name == "tf32") return {32, type_class::tf32};
  if (name == "e4m3") return {8, type_class::e4m3};
  if (name == "e5m2") return {8, type_class::e5m2};
  if (name == "s8") return {8, type_class::sint};
  if (name == "u8") return {8, type_class::bits};
  return {};
}
bool is_fp8(value_type t) { return t.cls == type_class::e4m3 || t.cls == type_class::e5m2; }
bool is_int8(value_type t) { return t.bits == 8 && (t.cls == type_class::sint || t.cls == type_class::bits); }

const std::unordered_map<std::string, special_register>& special_names() {
  static const std::unordered_map<std::string, special_register> k = {
      {"%tid.x", special_register::tid_x},
      {"%tid.y", special_register::tid_y},
      {"%tid.z", special_register::tid_z},
      {"%ntid.x", special_register::ntid_x},
      {"%ntid.y", special_register::ntid_y},
      {"%ntid.z", special_register::ntid_z},
      {"%ctaid.x", special_register::ctaid_x},
      {"%ctaid.y", special_register::ctaid_y},
      {"%ctaid.z", special_register::ctaid_z},
      {"%nctaid.x", special_register::nctaid_x},
      {"%nctaid.y", special_register::nctaid_y},
      {"%nctaid.z", special_register::nctaid_z},
      {"%laneid", special_register::laneid},
      {"%warpid", special_register::warpid},
      {"%nwarpid", special_register::nwarpid},
      {"%smid", special_register::smid},
      {"%nsmid", special_register::nsmid},
      {"%gridid", special_register::gridid},
      {"%lanemask_eq", special_register::lanemask_eq},
      {"%lanemask_lt", special_register::lanemask_lt},
      {"%lanemask_le", special_register::lanemask_le},
      {"%lanemask_gt", special_register::lanemask_gt},
      {"%lanemask_ge", special_register::lanemask_ge},
      {"%dynamic_smem_size", special_register::dynamic_smem_size},
      {"%total_smem_size", special_register::total_smem_size}};
  return k;
}

class decoder {
public:
  decoder(const module& m, const entry& e, program& p) : m_m(m), m_e(e), m_p(p) {
    for (const register_declaration& r : e.registers) {
      const int bits = r.type == "pred" ? 1 : type_bytes(r.type) * 8;
      if (r.count == 0)
        m_declared[r.name] = bits;
      else
        for (int i = 0; i < r.count; ++i) m_declared[r.name + std::to_string(i)] = bits;
    }
    lay_out_shared();
    for (const parameter& q : e.params) m_params[q.name] = q.offset;
    for (const shared_variable& v : e.local) {
      const auto a = static_cast<std::uint32_t>(std::max(v.align, 1));
      const std::uint32_t at = (p.local_bytes + a - 1) / a * a;
      m_local_at[v.name] = at;
      p.local_bytes = at + static_cast<std::uint32_t>(v.size);
    }
    for (const module_variable& v : m.constants) {
      const auto a = static_cast<std::size_t>(std::max(v.align, 1));
      const std::size_t at = (p.constant.size() + a - 1) / a * a;
      m_const_at[v.name] = static_cast<std::uint32_t>(at);
      p.constant.resize(at);
      p.constant.insert(p.constant.end(), v.bytes.begin(), v.bytes.end());
    }
  }

  void run() {
    m_p.name = m_e.name;
    m_p.ptx_line = m_e.ptx_line;
    m_p.files = m_m.files;
    m_p.param_bytes = m_e.param_bytes();
    for (const instruction& in : m_e.body) {
      decoded_instruction d;
      std::string error;
      try {
        d = decode(in);
      } catch (const unsupported_here& u) {
        d = decoded_instruction{};
        error = u.what;
      }
      m_p.code.push_back(d);
      m_p.errors.push_back(error);
      m_p.opcodes.push_back(in.opcode);
      m_p.location.push_back({in.ptx_line, in.file, in.line});
    }
    m_p.registers = static_cast<std::uint32_t>(m_regs.size());
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
    m_p.static_shared_bytes = end;
  }

  std::uint32_t reg_index(const std::string& name) {
    const auto [it, added] = m_regs.try_emplace(name, static_cast<std::uint32_t>(m_regs.size()));
    if (added) {
      const auto s = special_names().find(name);
      if (s != special_names().end())
        m_p.specials.emplace_back(it->second, s->second);
      else if (name.rfind("%envreg", 0) == 0 || name.rfind("%pm", 0) == 0 || name == "%globaltimer_lo" ||
               name == "%globaltimer_hi")
        reject("unsupported register '" + name + "'");
    }
    return it->second;
  }
  bool is_special(const std::string& name) const {
    return special_names().count(name) != 0 || name == "%clock" || name == "%clock64" || name == "%globaltimer";
  }

  /// A predicate source that may be negated ({!}p of vote and bar.red): `negated` says whether it is.
  decoded_operand predicate(const operand& o, std::uint8_t& negated) {
    operand plain = o;
    plain.negated = false;
    negated = o.negated ? 1 : 0;
    return source(plain);
  }

  /// A source operand.
  decoded_operand source(const operand& o) {
    decoded_operand d;
    if (o.negated) reject("'!" + o.name + "': a negated register is read only by vote and bar.red");
    if (declared_register(o)) {
      operand r = o;
      r.kind = operand_kind::reg;
      return source(r);
    }
    switch (o.kind) {
    case operand_kind::reg:
      if (o.name == "%clock" || o.name == "%clock64" || o.name == "%globaltimer") {
        d.type = operand_type::clock;
      } else {
        d.type = operand_type::reg;
        d.index = reg_index(o.name);
      }
      break;
    case operand_kind::immediate:
      d.type = operand_type::imm;
      d.imm = o.value;
      break;
    case operand_kind::symbol: {
      d.type = operand_type::imm;
      if (const auto s = m_shared_at.find(o.name); s != m_shared_at.end())
        d.imm = s->second;
      else if (const auto q = m_params.find(o.name); q != m_params.end())
        d.imm = q->second;
      else if (const auto c = m_const_at.find(o.name); c != m_const_at.end())
        d.imm = c->second;
      else if (const auto l = m_local_at.find(o.name); l != m_local_at.end())
        d.imm = l->second;
      else
        reject("the address of '" + o.name + "' is not known (only shared, .const variables and parameters)");
      break;
    }
    case operand_kind::vector: d = vector(o, false); break;
    default: reject("an operand is not a value");
    }
    return d;
  }

  /// A register declared without '%' (inline asm's `{ .reg .pred p; ... }`) reads as a symbol.
  [[nodiscard]] bool declared_register(const operand& o) const {
    return o.kind == operand_kind::symbol && m_declared.count(o.name) != 0 && m_shared_at.count(o.name) == 0 &&
           m_params.count(o.name) == 0;
  }

  decoded_operand destination(const operand& o) {
    if (declared_register(o)) {
      operand r = o;
      r.kind = operand_kind::reg;
      return destination(r);
    }
    if (o.kind == operand_kind::sink) {
      decoded_operand d;
      d.type = operand_type::sink;
      return d;
    }
    if (o.kind == operand_kind::vector) return vector(o, true);
    if (o.kind != operand_kind::reg || is_special(o.name)) reject("the destination is not a register");
    decoded_operand d;
    d.type = operand_type::reg;
    d.index = reg_index(o.name);
    const auto w = m_declared.find(o.name);
    d.mask = w == m_declared.end() ? ~0ull : mask_bits(w->second);
    return d;
  }

  decoded_operand vector(const operand& o, bool dest) {
    std::vector<decoded_operand> parts;
    for (const operand& e : o.elements) parts.push_back(dest ? destination(e) : source(e));
    decoded_operand d;
    d.type = operand_type::vec;
    d.index = static_cast<std::uint32_t>(m_p.elements.size());
    d.count = static_cast<std::uint32_t>(parts.size());
    m_p.elements.insert(m_p.elements.end(), parts.begin(), parts.end());
    return d;
  }

  /// [name + offset], [%r + offset], [offset]; shared variables and parameters resolved.
  decoded_operand address(const operand& o, state_space& space) {
    if (o.kind != operand_kind::memory) reject("expected a [address] operand");
    decoded_operand d;
    d.type = operand_type::mem;
    d.index = k_no_register;
    d.imm = o.value;
    if (o.name.empty()) return d;
    if (const auto s = m_shared_at.find(o.name); s != m_shared_at.end()) {
      d.imm += s->second;
      if (space == state_space::generic) space = state_space::shared;
    } else if (const auto q = m_params.find(o.name); q != m_params.end()) {
      d.imm += q->second;
      if (space == state_space::generic) space = state_space::param;
    } else if (const auto c = m_const_at.find(o.name); c != m_const_at.end()) {
      d.imm += c->second;
      if (space == state_space::generic) space = state_space::constant;
    } else if (const auto l = m_local_at.find(o.name); l != m_local_at.end()) {
      d.imm += l->second;
      // a call's .param (st.param / ld.param of an argument or result) lives with the .local arrays
      if (space == state_space::generic || space == state_space::param) space = state_space::local;
    } else if (o.name.front() == '%' && !is_special(o.name)) {
      d.index = reg_index(o.name);
    } else {
      reject("the address of '" + o.name + "' is not known");
    }
    return d;
  }

  static value_type type_of(const std::string& t) {
    if (t == "pred") return {1, type_class::pred};
    if (t == "f16") return {16, type_class::f16};
    if (t == "bf16") return {16, type_class::bf16};
    if (t == "f32" || t == "f64") return {static_cast<std::uint8_t>(t == "f32" ? 32 : 64), type_class::flt};
    const int bytes = type_bytes(t);
    if (bytes == 0 || bytes > 8 || t == "f16x2" || t == "bf16x2") return {};
    return {static_cast<std::uint8_t>(bytes * 8), t.front() == 's' ? type_class::sint : type_class::bits};
  }

  value_type last_type(const instruction& in) const {
    const value_type t = type_of(in.parts.back());
    if (t.bits == 0) reject_opcode(in);
    return t;
  }
  [[noreturn]] static void reject_opcode(const instruction& in) {
    reject("unsupported instruction '" + in.opcode + "'");
  }
  static bool has(const instruction& in, std::string_view part) {
    return std::find(in.parts.begin() + 1, in.parts.end(), part) != in.parts.end();
  }
  /// Stops on any part between the first and the last that is not in `allowed`.
  static void only(const instruction& in, std::initializer_list<std::string_view> allowed) {
    for (std::size_t i = 1; i + 1 < in.parts.size(); ++i)
      if (std::find(allowed.begin(), allowed.end(), in.parts[i]) == allowed.end()) reject_opcode(in);
  }
  static const operand& arg(const instruction& in, std::size_t i) {
    if (i >= in.operands.size()) reject(in.opcode + " has too few operands");
    return in.operands[i];
  }
  /// d, a, b, ...: the first `n` operands, the first a destination.
  void plain(const instruction& in, decoded_instruction& d, std::size_t n) {
    if (in.operands.size() != n) reject(in.opcode + " takes " + std::to_string(n) + " operands");
    d.op[0] = destination(in.operands[0]);
    for (std::size_t i = 1; i < n; ++i) d.op[i] = source(in.operands[i]);
    d.operands = static_cast<std::uint8_t>(n);
  }
  void traced(decoded_instruction& d) { d.trace_slot = m_p.traced++; }

  decoded_instruction decode(const instruction& in) {
    decoded_instruction d;
    if (!in.guard.empty()) {
      d.guard = reg_index(in.guard);
      d.guard_negated = in.guard_negated;
    }
    const std::string& op = in.parts[0];
    auto typed = [&](opcode c, std::size_t n) {
      d.code = c;
      d.type = last_type(in);
      d.mask = mask_bits(d.type.bits);
      plain(in, d, n);
    };
    if (op == "bra") {
      only(in, {});
      if (in.parts.size() > 2 || (in.parts.size() == 2 && in.parts[1] != "uni")) reject_opcode(in);
      const auto label = m_e.labels.find(arg(in, 0).name);
      if (label == m_e.labels.end()) reject("no label '" + arg(in, 0).name + "'");
      d.code = opcode::bra;
      d.target = static_cast<std::uint32_t>(label->second);
    } else if (op == "ret" || op == "exit") {
      d.code = opcode::exit;
    } else if ((op == "bar" || op == "barrier") && in.parts.size() >= 2 && in.parts[1] == "warp") {
      if (in.opcode != "bar.warp.sync") reject_opcode(in);
      d.code = opcode::warp_sync;
      d.op[0] = source(arg(in, 0)); // the member mask
    } else if ((op == "bar" || op == "barrier") && in.parts.size() >= 3 &&
               (in.parts[1] == "red" || (in.parts[1] == "cta" && in.parts[2] == "red"))) {
      decode_bar_red(in, d);
    } else if ((op == "bar" || op == "barrier") && in.parts.size() >= 2 &&
               (in.parts[1] == "sync" || in.parts[1] == "arrive" || in.parts[1] == "cta")) {
      // bar[.cta].sync / barrier[.cta].sync[.aligned] [a[, b]] and bar[.cta].arrive a, b: barrier a
      // (0 to 15), b threads (a multiple of 32; without it, the CTA's). Without b the barrier is the
      // CTA's (op[1] none); with it, a named barrier for part of the CTA, arrive (flag) not waiting.
      std::size_t at = in.parts[1] == "cta" ? 2 : 1;
      if (at >= in.parts.size() || (in.parts[at] != "sync" && in.parts[at] != "arrive")) reject_opcode(in);
      d.flag = in.parts[at] == "arrive";
      if (++at < in.parts.size() && in.parts[at] == "aligned") ++at;
      if (at != in.parts.size() || in.operands.size() > 2 || (d.flag && in.operands.size() != 2)) reject_opcode(in);
      d.code = opcode::bar;
      if (!in.operands.empty()) d.op[0] = source(in.operands[0]);
      if (in.operands.size() == 2) d.op[1] = source(in.operands[1]);
    } else if (op == "membar" || op == "fence" || op == "prefetch" || op == "prefetchu" ||
               (op == "cp" && in.parts.size() >= 3 && in.parts[1] == "async" &&
                (in.parts[2] == "commit_group" || in.parts[2] == "wait_group" || in.parts[2] == "wait_all"))) {
      d.code = opcode::nop; // one thread runs at a time, and cp.async copies at once
    } else if (op == "wgmma" && in.parts.size() >= 2 &&
               (in.parts[1] == "fence" || in.parts[1] == "commit_group" || in.parts[1] == "wait_group")) {
      d.code = opcode::nop; // a warpgroup's wgmma runs at once, its results there when it returns
    } else if (op == "wgmma") {
      decode_wgmma(in, d);
    } else if (op == "cp" && in.parts.size() >= 4 && in.parts[1] == "async" && in.parts[2] == "bulk") {
      decode_bulk(in, d);
    } else if (op == "mbarrier") {
      decode_mbarrier(in, d);
    } else if (op == "cp") {
      decode_cp_async(in, d);
    } else if (op == "ld" || op == "st" || op == "atom" || op == "red") {
      decode_memory(in, d);
    } else if (op == "ldmatrix" || op == "stmatrix") {
      decode_matrix(in, d);
    } else if (op == "mma") {
      decode_mma(in, d);
    } else if (op == "mov") {
      only(in, {});
      typed(opcode::mov, 2);
    } else if (op == "setp") {
      decode_setp(in, d);
    } else if (op == "selp") {
      only(in, {});
      typed(opcode::selp, 4);
    } else if (op == "slct") {
      // slct[.ftz].DTYPE.CTYPE d, a, b, c
      if (in.parts.size() < 3) reject_opcode(in);
      d.code = opcode::slct;
      d.type = type_of(in.parts[in.parts.size() - 2]);
      d.type2 = type_of(in.parts.back());
      if (d.type.bits == 0 || d.type2.bits != 32) reject_opcode(in);
      d.mask = mask_bits(d.type.bits);
      plain(in, d, 4);
    } else if (op == "cvt") {
      decode_cvt(in, d);
    } else if (op == "cvta" || op == "isspacep") {
      const bool to = in.parts.size() > 1 && in.parts[1] == "to";
      const std::size_t at = to ? 2 : 1;
      if (in.parts.size() != at + (op == "cvta" ? 2 : 1)) reject_opcode(in);
      const std::string& where = in.parts[at];
      if (where == "shared")
        d.space = state_space::shared;
      else if (where == "global")
        d.space = state_space::global;
      else if (where == "param")
        d.space = state_space::param;
      else if (where == "const")
        d.space = state_space::constant;
      else if (where == "local")
        d.space = state_space::local;
      else
        reject_opcode(in);
      d.flag = to;
      if (op == "cvta") {
        typed(opcode::cvta, 2);
      } else {
        d.code = opcode::isspacep;
        d.type = {64, type_class::bits};
        d.mask = ~0ull;
        plain(in, d, 2);
      }
    } else if (op == "and" || op == "or" || op == "xor" || op == "not" || op == "cnot") {
      only(in, {});
      const bool unary = op == "not" || op == "cnot";
      typed(op == "and"   ? opcode::band
            : op == "or"  ? opcode::bor
            : op == "xor" ? opcode::bxor
            : op == "not" ? opcode::bnot
                          : opcode::cnot,
            unary ? 2 : 3);
    } else if (op == "shl" || op == "shr") {
      only(in, {});
      typed(op == "shl" ? opcode::shl : opcode::shr, 3);
    } else if (op == "shf") {
      // shf.l|r.wrap|clamp.b32 d, a, b, c
      if (in.parts.size() != 4 || in.parts[3] != "b32" || (in.parts[1] != "l" && in.parts[1] != "r") ||
          (in.parts[2] != "wrap" && in.parts[2] != "clamp"))
        reject_opcode(in);
      typed(in.parts[1] == "l" ? opcode::shf_l : opcode::shf_r, 4);
      d.flag = in.parts[2] == "clamp";
    } else if (op == "bfe" || op == "bfi" || op == "prmt" || op == "popc" || op == "clz" || op == "brev" ||
               op == "lop3") {
      if (op == "prmt" && in.parts.size() != 2) reject_opcode(in); // only the default mode
      only(in, {});
      const std::size_t n = op == "bfe" ? 4 : op == "bfi" || op == "lop3" ? 5 : op == "prmt" ? 4 : 2;
      typed(op == "bfe"    ? opcode::bfe
            : op == "bfi"  ? opcode::bfi
            : op == "prmt" ? opcode::prmt
            : op == "popc" ? opcode::popc
            : op == "clz"  ? opcode::clz
            : op == "brev" ? opcode::brev
                           : opcode::lop3,
            n);
      if ((op == "popc" || op == "clz") && d.op[0].type == operand_type::reg) d.op[0].mask &= 0xffffffffu;
    } else if (op == "dp4a") {
      // dp4a.atype.btype d, a, b, c (u32 / s32): c plus the products of a's and b's four bytes
      const auto signed_of = [&](std::size_t i) {
        if (in.parts[i] != "s32" && in.parts[i] != "u32") reject_opcode(in);
        return in.parts[i] == "s32";
      };
      if (in.parts.size() != 3 || in.operands.size() != 4) reject_opcode(in);
      const bool a_signed = signed_of(1), b_signed = signed_of(2);
      d.code = opcode::dp4a;
      d.type = {32, a_signed || b_signed ? type_class::sint : type_class::bits};
      d.mask = 0xffffffffu;
      d.mode = static_cast<std::uint8_t>((a_signed ? 1 : 0) | (b_signed ? 2 : 0));
      d.op[0] = destination(in.operands[0]);
      for (std::size_t i = 1; i < 4; ++i) d.op[i] = source(in.operands[i]);
    } else if (op == "sad") {
      only(in, {});
      typed(opcode::sad, 4);
      if (d.type.cls == type_class::pred || d.type.cls == type_class::flt) reject_opcode(in);
    } else if (op == "fma" || op == "add" || op == "sub" || op == "mul" || op == "mad" || op == "div" || op == "rem" ||
               op == "min" || op == "max" || op == "neg" || op == "abs" || op == "rcp" || op == "sqrt" ||
               op == "rsqrt" || op == "ex2" || op == "lg2" || op == "sin" || op == "cos") {
      const bool pair = in.parts.back() == "f16x2" || in.parts.back() == "bf16x2";
      const value_type t = pair ? value_type{16, type_class::f16} : last_type(in);
      if (t.cls == type_class::flt || t.cls == type_class::f16 || t.cls == type_class::bf16)
        decode_float(in, d);
      else
        decode_integer(in, d);
    } else if (op == "shfl" || op == "vote" || op == "match" || op == "activemask" || op == "redux") {
      decode_warp(in, d);
    } else if (op == "call") {
      // call{.uni} (results), name, (arguments): device printf (vprintf) prints nothing here and
      // returns 0; a failed assert() (__assertfail) stops the run; other calls are not followed.
      const operand* callee = nullptr;
      for (const operand& o : in.operands)
        if (o.kind == operand_kind::symbol) {
          callee = &o;
          break;
        }
      if (callee == nullptr) reject_opcode(in);
      if (callee->name == "vprintf") {
        d.code = opcode::nop;
      } else if (callee->name == "__assertfail") {
        reject("an assert() in the kernel failed (it called __assertfail)");
      } else {
        reject("a call of '" + callee->name + "' (device functions the compiler did not inline are not followed)");
      }
    } else if (op == "elect") {
      // elect.sync d|p, membermask: d the leader's lane (or _), p true in the leader alone
      if (in.opcode != "elect.sync" || in.operands.size() != 3) reject_opcode(in);
      d.code = opcode::elect;
      d.type = {32, type_class::bits};
      d.mask = 0xffffffffu;
      d.op[0] = destination(in.operands[0]);
      d.op[1] = destination(in.operands[1]);
      d.op[2] = source(in.operands[2]);
    } else {
      reject_opcode(in);
    }
    return d;
  }

  void decode_integer(const instruction& in, decoded_instruction& d) {
    const std::string& op = in.parts[0];
    const bool wide = has(in, "wide"), hi = has(in, "hi");
    if (op == "mul" || op == "mad")
      only(in, {"lo", "hi", "wide"});
    else
      only(in, {});
    const bool unary = op == "neg" || op == "abs";
    opcode c = opcode::add;
    if (op == "add")
      c = opcode::add;
    else if (op == "sub")
      c = opcode::sub;
    else if (op == "mul")
      c = wide ? opcode::mul_wide : hi ? opcode::mul_hi : opcode::mul_lo;
    else if (op == "mad")
      c = wide ? opcode::mad_wide : hi ? opcode::mad_hi : opcode::mad_lo;
    else if (op == "div")
      c = opcode::div;
    else if (op == "rem")
      c = opcode::rem;
    else if (op == "min")
      c = opcode::min;
    else if (op == "max")
      c = opcode::max;
    else if (op == "neg")
      c = opcode::neg;
    else if (op == "abs")
      c = opcode::abs;
    else
      reject_opcode(in);
    d.code = c;
    d.type = last_type(in);
    if (d.type.cls == type_class::pred || (wide && d.type.bits > 32)) reject_opcode(in);
    d.mask = mask_bits(d.type.bits);
    plain(in, d, unary ? 2 : op == "mad" ? 4 : 3);
  }

  void decode_float(const instruction& in, decoded_instruction& d) {
    const std::string& op = in.parts[0];
    only(in, {"rn", "rz", "rm", "rp", "ftz", "approx", "full", "sat"});
    // f16x2 / bf16x2: two halves in one 32-bit register, each computed as its scalar type (count 2)
    const std::string& last = in.parts.back();
    const bool pair = last == "f16x2" || last == "bf16x2";
    d.type = pair ? value_type{16, last == "f16x2" ? type_class::f16 : type_class::bf16} : last_type(in);
    d.count = pair ? 2 : 1;
    if (d.type.cls != type_class::flt && op != "add" && op != "sub" && op != "mul" && op != "fma" && op != "neg" &&
        op != "abs" && op != "min" && op != "max")
      reject_opcode(in);
    d.mask = mask_bits(pair ? 32 : d.type.bits);
    d.flag = has(in, "sat");
    static const std::unordered_map<std::string, opcode> k = {
        {"add", opcode::fadd},     {"sub", opcode::fsub}, {"mul", opcode::fmul}, {"div", opcode::fdiv},
        {"fma", opcode::fma},      {"mad", opcode::fma},  {"min", opcode::fmin}, {"max", opcode::fmax},
        {"neg", opcode::fneg},     {"abs", opcode::fabs}, {"rcp", opcode::frcp}, {"sqrt", opcode::fsqrt},
        {"rsqrt", opcode::frsqrt}, {"ex2", opcode::fex2}, {"lg2", opcode::flg2}, {"sin", opcode::fsin},
        {"cos", opcode::fcos}};
    const auto c = k.find(op);
    if (c == k.end()) reject_opcode(in);
    d.code = c->second;
    const bool unary = d.code == opcode::fneg || d.code == opcode::fabs || d.code >= opcode::frcp;
    plain(in, d, unary ? 2 : d.code == opcode::fma ? 4 : 3);
  }

  void decode_setp(const instruction& in, decoded_instruction& d) {
    // setp.CMP[.BOOLOP][.ftz].TYPE p[|q], a, b[, c]
    std::vector<std::string> parts(in.parts.begin(), in.parts.end());
    parts.erase(std::remove(parts.begin(), parts.end(), "ftz"), parts.end());
    if (parts.size() < 3 || parts.size() > 4) reject_opcode(in);
    d.code = opcode::setp;
    d.type = last_type(in);
    d.mask = mask_bits(d.type.bits);
    static const std::vector<std::string> k_cmp = {"eq", "ne",  "lt",  "le",  "gt",  "ge",  "lo",  "ls",  "hi",
                                                   "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
    const auto c = std::find(k_cmp.begin(), k_cmp.end(), parts[1]);
    if (c == k_cmp.end()) reject_opcode(in);
    d.mode = static_cast<std::uint8_t>(c - k_cmp.begin());
    const bool is_float = d.type.cls == type_class::flt || d.type.cls == type_class::f16 ||
                          d.type.cls == type_class::bf16;
    if ((d.mode >= 6 && d.mode < 10 && is_float) || (d.mode >= 10 && !is_float)) reject_opcode(in);
    if (parts.size() == 4) {
      const std::string& b = parts[2];
      d.mode2 = b == "and" ? 1 : b == "or" ? 2 : b == "xor" ? 3 : 0;
      if (d.mode2 == 0) reject_opcode(in);
    }
    // With p|q the parser gives both before a: p, q, a, b[, c].
    const std::size_t sources = d.mode2 != 0 ? 3 : 2;
    const bool two = in.operands.size() == sources + 2;
    if (!two && in.operands.size() != sources + 1) reject(in.opcode + " has the wrong number of operands");
    d.flag = two;
    d.op[0] = destination(in.operands[0]);
    d.op[1] = two ? destination(in.operands[1]) : decoded_operand{operand_type::sink};
    for (std::size_t i = 0; i < sources; ++i) d.op[2 + i] = source(in.operands[(two ? 2 : 1) + i]);
  }

  void decode_cvt(const instruction& in, decoded_instruction& d) {
    // cvt[.rounding][.ftz][.sat].DST.SRC
    if (in.parts.size() < 3) reject_opcode(in);
    const std::string& to = in.parts[in.parts.size() - 2];
    const std::string& from = in.parts.back();
    const auto fp8_pair = [](const std::string& t) { return t == "e4m3x2" || t == "e5m2x2"; };
    const bool to_pair = to == "f16x2" || to == "bf16x2" || fp8_pair(to);
    if ((to_pair && (from == "f32" || (fp8_pair(to) && from == "f16x2"))) || (to == "f16x2" && fp8_pair(from))) {
      // cvt.rn|rz[.relu].f16x2|bf16x2.f32 d, a, b and cvt.rn.satfinite[.relu].e4m3x2|e5m2x2.f32 d, a, b:
      // a's value in the upper half, b's in the lower; cvt.rn.satfinite[.relu].e4m3x2|e5m2x2.f16x2 d, a
      // (flag: one packed source); cvt.rn[.relu].f16x2.e4m3x2|e5m2x2 d, a: a 16-bit source's bytes.
      bool rn = false, rz = false, relu = false, satfinite = false;
      for (std::size_t i = 1; i + 2 < in.parts.size(); ++i) {
        const std::string& p = in.parts[i];
        if (p == "rn")
          rn = true;
        else if (p == "rz")
          rz = true;
        else if (p == "relu")
          relu = true;
        else if (p == "satfinite")
          satfinite = true;
        else
          reject_opcode(in);
      }
      if (rn == rz || satfinite != fp8_pair(to) || (rz && (fp8_pair(to) || fp8_pair(from)))) reject_opcode(in);
      const auto type_of_pair = [](const std::string& t) -> value_type {
        if (t == "f16x2") return {16, type_class::f16};
        if (t == "bf16x2") return {16, type_class::bf16};
        if (t == "e4m3x2") return {8, type_class::e4m3};
        if (t == "e5m2x2") return {8, type_class::e5m2};
        return {32, type_class::flt};
      };
      d.code = fp8_pair(from) ? opcode::cvt_unpack : opcode::cvt_pack;
      d.type = type_of_pair(to);
      d.type2 = type_of_pair(from);
      d.flag = d.code == opcode::cvt_pack && from == "f16x2";
      d.mode = rn ? 1 : 2;
      d.mode2 = relu ? 1 : 0;
      d.mask = mask_bits(2 * d.type.bits);
      plain(in, d, d.code == opcode::cvt_pack && !d.flag ? 3 : 2);
      return;
    }
    if (to == "tf32" && from == "f32") {
      // cvt.rna[.satfinite].tf32.f32 d, a (and .rn / .rz): an f32 rounded to tf32's 10 mantissa
      // bits, its low 13 bits zero; rna rounds ties away from zero (mode 9)
      bool rounding = false;
      for (std::size_t i = 1; i + 2 < in.parts.size(); ++i) {
        const std::string& p = in.parts[i];
        if (p == "rna" || p == "rn" || p == "rz") {
          if (rounding) reject_opcode(in);
          rounding = true;
          d.mode = p == "rna" ? 9 : p == "rn" ? 1 : 2;
        } else if (p == "satfinite" || p == "relu") {
          d.mode2 = p == "relu" ? 2 : 1;
        } else {
          reject_opcode(in);
        }
      }
      if (!rounding) reject_opcode(in);
      d.code = opcode::cvt;
      d.type = {32, type_class::tf32};
      d.type2 = {32, type_class::flt};
      d.mask = mask_bits(32);
      plain(in, d, 2);
      return;
    }
    d.code = opcode::cvt;
    d.type = type_of(in.parts[in.parts.size() - 2]);
    d.type2 = type_of(in.parts.back());
    if (d.type.bits == 0 || d.type2.bits == 0 || d.type.cls == type_class::pred || d.type2.cls == type_class::pred)
      reject_opcode(in);
    static const std::vector<std::string> k_modes = {"", "rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi"};
    for (std::size_t i = 1; i + 2 < in.parts.size(); ++i) {
      const std::string& p = in.parts[i];
      const auto m = std::find(k_modes.begin(), k_modes.end(), p);
      if (m != k_modes.end())
        d.mode = static_cast<std::uint8_t>(m - k_modes.begin());
      else if (p == "sat")
        d.mode2 = 1;
      else if (p != "ftz")
        reject_opcode(in);
    }
    d.mask = mask_bits(d.type.bits);
    plain(in, d, 2);
  }

  void decode_memory(const instruction& in, decoded_instruction& d) {
    const std::string& op = in.parts[0];
    static const std::vector<std::string_view> k_ignored = {"nc",      "ca",       "cg",      "cs",      "lu",
                                                            "cv",      "volatile", "relaxed", "acquire", "release",
                                                            "acq_rel", "weak",     "cta",     "gpu",     "sys",
                                                            "cluster", "noftz"};
    d.code = op == "ld" ? opcode::ld : op == "st" ? opcode::st : op == "atom" ? opcode::atom : opcode::red;
    const bool atomic = d.code == opcode::atom || d.code == opcode::red;
    static const std::vector<std::string> k_ops = {"add", "and", "or",  "xor", "exch",
                                                   "cas", "min", "max", "inc", "dec"};
    bool has_op = false;
    for (std::size_t i = 1; i + 1 < in.parts.size(); ++i) {
      const std::string& p = in.parts[i];
      if (p == "param")
        d.space = state_space::param;
      else if (p == "global")
        d.space = state_space::global;
      else if (p == "shared" || p == "shared::cta")
        d.space = state_space::shared;
      else if (p == "const")
        d.space = state_space::constant;
      else if (p == "local")
        d.space = state_space::local;
      else if (p == "v2" || p == "v4")
        d.count = p == "v2" ? 2 : 4;
      else if (atomic && !has_op && std::find(k_ops.begin(), k_ops.end(), p) != k_ops.end()) {
        d.mode = static_cast<std::uint8_t>(std::find(k_ops.begin(), k_ops.end(), p) - k_ops.begin());
        has_op = true;
      } else if (p.rfind("L1::", 0) != 0 && p.rfind("L2::", 0) != 0 &&
                 std::find(k_ignored.begin(), k_ignored.end(), p) == k_ignored.end())
        reject_opcode(in);
    }
    if (d.space == state_space::constant && d.code != opcode::ld) reject_opcode(in);
    if (atomic && (!has_op || d.count != 1)) reject_opcode(in);
    d.type = last_type(in);
    if (d.type.cls == type_class::pred || (atomic && (d.type.cls == type_class::f16 || d.type.cls == type_class::bf16)))
      reject_opcode(in);
    if (atomic && d.type.cls == type_class::flt && d.mode != 0 && d.mode != 4) reject_opcode(in); // add, exch
    d.mask = mask_bits(d.type.bits);
    const std::size_t at = d.code == opcode::ld || d.code == opcode::atom ? 1 : 0;
    d.op[1] = address(arg(in, at), d.space);                                      // a call's .param: local from here on
    if (d.space == state_space::param && d.code != opcode::ld) reject_opcode(in); // the kernel's own
    if (d.code == opcode::ld || d.code == opcode::atom) d.op[0] = destination(arg(in, 0));
    if (d.code == opcode::st || d.code == opcode::red) d.op[2] = source(arg(in, 1));
    if (d.code == opcode::atom) {
      d.op[2] = source(arg(in, 2));
      if (d.mode == 5) d.op[3] = source(arg(in, 3));
    }
    if (d.count > 1) {
      const decoded_operand& v = d.code == opcode::ld ? d.op[0] : d.op[2];
      if (v.type != operand_type::vec || v.count != d.count)
        reject("expected " + std::to_string(d.count) + (d.code == opcode::ld ? " destinations" : " values"));
    }
    if (d.space == state_space::shared || d.space == state_space::generic) traced(d);
  }

  void decode_bulk(const instruction& in, decoded_instruction& d) {
    // cp.async.bulk.tensor.Nd.shared::cluster.global{.tile}.mbarrier::complete_tx::bytes{.L2::cache_hint}
    //   [dst], [map, {c0, ..}], [mbar]{, policy}: a TMA load, copied at once;
    // cp.async.bulk.tensor.Nd.global.shared::cta{.tile}.bulk_group{.L2::cache_hint} [map, {c0, ..}],
    //   [src]{, policy}: a TMA store, written at once. Prefetches, commit and wait change nothing
    // here. Other bulk copies (multicast, im2col, plain bulk) are named.
    if (in.parts[3] == "commit_group" || in.parts[3] == "wait_group" || in.parts[3] == "prefetch") {
      d.code = opcode::nop;
      return;
    }
    const std::string what = "unsupported instruction '" + in.opcode + "'";
    if (in.parts[3] != "tensor" || in.parts.size() < 8)
      reject(what + " (the model follows cp.async.bulk.tensor loads and stores of a tensor map)");
    const std::string& rank = in.parts[4];
    if (rank.size() != 2 || rank[1] != 'd' || rank[0] < '1' || rank[0] > '5') reject(what);
    const bool load = (in.parts[5] == "shared::cluster" || in.parts[5] == "shared::cta") && in.parts[6] == "global";
    const bool store = in.parts[5] == "global" && in.parts[6] == "shared::cta";
    if (!load && !store) reject(what);
    bool completes = false;
    for (std::size_t i = 7; i < in.parts.size(); ++i) {
      const std::string& p = in.parts[i];
      if (load && p == "mbarrier::complete_tx::bytes")
        completes = true;
      else if (store && p == "bulk_group")
        completes = true;
      else if (p != "tile" && p != "L2::cache_hint")
        reject(what + " (." + p + " is not followed: tiled copies of one CTA)");
    }
    if (!completes) reject(what);
    d.code = load ? opcode::tma_load : opcode::tma_store;
    d.count = static_cast<std::uint8_t>(rank[0] - '0');
    d.space = state_space::shared;
    const operand& map = arg(in, load ? 1 : 0);
    if (map.kind != operand_kind::memory || map.elements.size() != 1 || map.elements[0].kind != operand_kind::vector ||
        map.elements[0].elements.size() != d.count)
      reject(in.opcode + ": expected [tensor-map, {" + std::to_string(d.count) + " coordinates}]");
    state_space generic = state_space::generic;
    operand base = map;
    base.elements.clear();
    d.op[0] = address(arg(in, load ? 0 : 1), d.space); // the box in shared memory
    d.op[1] = address(base, generic);
    if (load) d.op[2] = address(arg(in, 2), d.space);
    d.op[3] = source(map.elements[0]);
  }

  void decode_bar_red(const instruction& in, decoded_instruction& d) {
    // bar{.cta}.red.popc.u32 d, a, {!}c and bar{.cta}.red.and|or.pred p, a, {!}c (barrier{.cta}.red
    // with .aligned after the operation too): __syncthreads_count / _and / _or. The CTA's barrier
    // a; mode 1 popc, 2 and, 3 or; mode2: c read negated. A thread count b (part of the CTA) is
    // not followed.
    std::size_t at = in.parts[1] == "cta" ? 3 : 2;
    static const std::vector<std::string> k = {"popc", "and", "or"};
    const auto m = at < in.parts.size() ? std::find(k.begin(), k.end(), in.parts[at]) : k.end();
    if (m == k.end()) reject_opcode(in);
    if (++at < in.parts.size() && in.parts[at] == "aligned") ++at;
    const bool popc = m == k.begin();
    if (at + 1 != in.parts.size() || in.parts[at] != (popc ? "u32" : "pred")) reject_opcode(in);
    if (in.operands.size() == 4)
      reject("'" + in.opcode + "' for part of the CTA (a thread count) is not followed; the CTA's is");
    if (in.operands.size() != 3) reject(in.opcode + " takes 3 operands");
    d.code = opcode::bar;
    d.mode = static_cast<std::uint8_t>(1 + (m - k.begin()));
    d.type = {32, type_class::bits};
    d.op[0] = destination(in.operands[0]);
    d.op[1] = source(in.operands[1]);
    d.op[2] = predicate(in.operands[2], d.mode2);
  }

  void decode_mbarrier(const instruction& in, decoded_instruction& d) {
    // mbarrier.init / arrive{.expect_tx} / expect_tx / try_wait{.parity} / test_wait{.parity} / inval,
    // with .sem and .scope qualifiers (.release, .acquire, .relaxed, .cta, .cluster) and
    // .shared{::cta}.b64. The barrier's state lives beside shared memory (run.cpp). op[0]: the
    // result (a state token, or the wait's predicate), op[1]: the barrier, op[2]: a count.
    if (in.parts.size() < 3 || in.parts.back() != "b64") reject_opcode(in);
    const std::string& what = in.parts[1];
    bool parity = false, expect = false;
    for (std::size_t i = 2; i + 1 < in.parts.size(); ++i) {
      const std::string& p = in.parts[i];
      if (p == "parity")
        parity = true;
      else if (p == "expect_tx")
        expect = true;
      else if (p == "shared::cluster")
        reject("'" + in.opcode + "' on another CTA's barrier (.shared::cluster) is not followed");
      else if (p != "shared" && p != "shared::cta" && p != "release" && p != "acquire" && p != "relaxed" &&
               p != "cta" && p != "cluster")
        reject_opcode(in);
    }
    d.code = opcode::mbarrier;
    d.space = has(in, "shared") || has(in, "shared::cta") ? state_space::shared : state_space::generic;
    const auto op_is = [&](mbarrier_op o) { d.mode = static_cast<std::uint8_t>(o); };
    if (what == "init") {
      op_is(mbarrier_op::init);
      d.op[1] = address(arg(in, 0), d.space);
      d.op[2] = source(arg(in, 1));
    } else if (what == "arrive" || what == "arrive_drop") {
      if (what == "arrive_drop") reject_opcode(in);
      op_is(expect ? mbarrier_op::arrive_expect_tx : mbarrier_op::arrive);
      d.op[0] = destination(arg(in, 0)); // the state token, or _
      d.op[1] = address(arg(in, 1), d.space);
      d.op[2] = in.operands.size() > 2 ? source(in.operands[2])
                                       : decoded_operand{operand_type::imm, 0, 0, ~0ull, expect ? 0 : 1};
    } else if (what == "expect_tx") {
      op_is(mbarrier_op::expect_tx);
      d.op[1] = address(arg(in, 0), d.space);
      d.op[2] = source(arg(in, 1));
    } else if (what == "try_wait" || what == "test_wait") {
      op_is(parity ? mbarrier_op::wait_parity : mbarrier_op::wait_state);
      d.op[0] = destination(arg(in, 0));
      d.op[1] = address(arg(in, 1), d.space);
      d.op[2] = source(arg(in, 2));
    } else if (what == "inval") {
      op_is(mbarrier_op::inval);
      d.op[1] = address(arg(in, 0), d.space);
    } else {
      reject_opcode(in);
    }
  }

  void decode_cp_async(const instruction& in, decoded_instruction& d) {
    // cp.async.ca|cg.shared{::cta}.global{.L2::...} [dst], [src], cp-size{, src-size}{, cache-policy}
    if (in.parts.size() < 5 || in.parts[1] != "async" || (in.parts[2] != "ca" && in.parts[2] != "cg") ||
        (in.parts[3] != "shared" && in.parts[3] != "shared::cta") || in.parts[4] != "global")
      reject_opcode(in);
    for (std::size_t i = 5; i < in.parts.size(); ++i)
      if (in.parts[i].rfind("L2::", 0) != 0) reject_opcode(in);
    d.code = opcode::cp_async;
    d.flag = in.parts[2] == "cg";
    d.space = state_space::shared;
    state_space global = state_space::global;
    d.op[0] = address(arg(in, 0), d.space);
    d.op[1] = address(arg(in, 1), global);
    const operand& size = arg(in, 2);
    if (size.kind != operand_kind::immediate || (size.value != 4 && size.value != 8 && size.value != 16) ||
        (d.flag && size.value != 16))
      reject("cp.async copies 4, 8 or 16 bytes (.cg: 16)");
    d.count = static_cast<std::uint8_t>(size.value);
    // a fourth operand is the source size unless .L2::cache_hint makes it the policy
    const bool hint = has(in, "L2::cache_hint");
    if (in.operands.size() >= 4 && !(hint && in.operands.size() == 4)) {
      d.op[2] = source(in.operands[3]);
    } else {
      d.op[2].type = operand_type::imm;
      d.op[2].imm = size.value;
    }
    traced(d);
  }

  void decode_matrix(const instruction& in, decoded_instruction& d) {
    // ldmatrix.sync.aligned.m8n8.x1|x2|x4{.trans}{.shared{::cta}}.b16 d, [a]
    // stmatrix.sync.aligned.m8n8.x1|x2|x4{.trans}{.shared{::cta}}.b16 [a], s
    // (the shape and the count come in either order: CUTLASS writes .x4.m8n8)
    const bool load = in.parts[0] == "ldmatrix";
    if (in.parts.size() < 6 || in.parts[1] != "sync" || in.parts[2] != "aligned" || in.parts.back() != "b16")
      reject_opcode(in);
    bool shape = false;
    d.count = 0;
    for (std::size_t i = 3; i + 1 < in.parts.size(); ++i) {
      const std::string& p = in.parts[i];
      if (p == "m8n8" && !shape)
        shape = true;
      else if ((p == "x1" || p == "x2" || p == "x4") && d.count == 0)
        d.count = static_cast<std::uint8_t>(p[1] - '0');
      else if (p == "trans")
        d.flag = true;
      else if (p != "shared" && p != "shared::cta")
        reject_opcode(in);
    }
    if (!shape || d.count == 0) reject_opcode(in);
    d.code = load ? opcode::ldmatrix : opcode::stmatrix;
    d.space = has(in, "shared") || has(in, "shared::cta") ? state_space::shared : state_space::generic;
    d.op[1] = address(arg(in, load ? 1 : 0), d.space);
    d.op[0] = load ? destination(arg(in, 0)) : source(arg(in, 1));
    if (d.op[0].type != operand_type::vec) {
      if (d.count != 1) reject("expected " + std::to_string(d.count) + " registers");
      m_p.elements.push_back(d.op[0]);
      d.op[0] = decoded_operand{operand_type::vec, static_cast<std::uint32_t>(m_p.elements.size() - 1), 1};
    }
    if (d.op[0].count != d.count) reject("expected " + std::to_string(d.count) + " registers");
    traced(d);
  }

  void decode_mma(const instruction& in, decoded_instruction& d) {
    // mma.sync.aligned.m16n8kK.row.col.dtype.atype.btype.ctype d, a, b, c (.satfinite for s32):
    // f16 x f16 (k8, k16) into f32 or f16, bf16 x bf16 (k8, k16) and tf32 x tf32 (k4, k8) into f32,
    // e4m3/e5m2 (k16, k32) into f32 or f16, s8/u8 (k16, k32) into s32. Each lane's registers hold
    // its part of A, B, C and D as the PTX ISA's fragments give them.
    static const std::string k_forms = "the model follows mma.sync.aligned m16n8kK .row.col with f16 or bf16 (k8, "
                                       "k16), tf32 (k4, k8), e4m3/e5m2 (k16, k32) and s8/u8 (k16, k32)";
    std::vector<std::string> parts = in.parts;
    bool satfinite = false;
    if (parts.size() == 11 && parts[6] == "satfinite") { // mma.sync.aligned.shape.row.col.satfinite.s32...
      satfinite = true;
      parts.erase(parts.begin() + 6);
    }
    if (parts.size() != 10 || parts[1] != "sync" || parts[2] != "aligned" || parts[4] != "row" || parts[5] != "col")
      reject("unsupported instruction '" + in.opcode + "' (" + k_forms + ")");
    const std::string &shape = parts[3], &dtype = parts[6], &atype = parts[7], &btype = parts[8], &ctype = parts[9];
    const value_type a_type = matrix_element_type(atype), b_type = matrix_element_type(btype);
    const bool integer = is_int8(a_type), fp8 = is_fp8(a_type);
    int k = 0;
    if (shape == "m16n8k4") k = 4;
    if (shape == "m16n8k8") k = 8;
    if (shape == "m16n8k16") k = 16;
    if (shape == "m16n8k32") k = 32;
    // K: 8 or 16 of 16-bit types, 4 or 8 of tf32, 16 or 32 of 8-bit ones
    const bool k_ok = a_type.bits != 0 && (k * a_type.bits == 128 || k * a_type.bits == 256);
    const bool b_ok = b_type.bits == a_type.bits && (atype == btype || fp8 || integer) && is_fp8(b_type) == fp8;
    const bool d_ok = integer ? dtype == "s32" && ctype == "s32"
                              : dtype == ctype && (dtype == "f32" || (dtype == "f16" && (atype == "f16" || fp8)));
    if (!k_ok || !b_ok || !d_ok || (satfinite && !integer) || (fp8 && k == 16 && dtype == "f16"))
      reject("unsupported instruction '" + in.opcode + "' (" + k_forms + ")");
    d.code = opcode::mma;
    d.count = static_cast<std::uint8_t>(k);
    d.type = integer ? value_type{32, type_class::sint}
                     : (dtype == "f32" ? value_type{32, type_class::flt} : value_type{16, type_class::f16});
    d.type2 = a_type;
    d.type3 = b_type;
    d.mode = satfinite ? 1 : 0;
    if (in.operands.size() != 4) reject(in.opcode + " takes 4 operands: d, a, b, c");
    const int accumulators = d.type.bits == 32 ? 4 : 2, a_regs = k * a_type.bits / 64, b_regs = k * a_type.bits / 128;
    const int counts[4] = {accumulators, a_regs, b_regs, accumulators};
    for (std::size_t i = 0; i < 4; ++i) {
      d.op[i] = i == 0 ? destination(in.operands[0]) : source(in.operands[i]);
      if (d.op[i].type != operand_type::vec ||
          static_cast<int>(d.op[i].count) != counts[i]) // braces even for one, as ptxas asks
        reject(in.opcode + ": operand " + std::string(1, "dabc"[i]) + " needs " + std::to_string(counts[i]) +
               " register" + (counts[i] == 1 ? "" : "s") + " in braces");
    }
  }

  void decode_wgmma(const instruction& in, decoded_instruction& d) {
    // wgmma.mma_async.sync.aligned.m64nNkK.dtype.atype.btype d, a-desc, b-desc, scale-d, imm-scale-a,
    // imm-scale-b[, imm-trans-a, imm-trans-b]: both operands from shared memory descriptors; or d,
    // {a0, a1, a2, a3}, b-desc, scale-d, imm-scale-a, imm-scale-b[, imm-trans-b]: A from each
    // thread's four registers (flag). The imm-trans operands (1: MN-major) belong to f16 and bf16
    // alone. Types:
    // f32 or f16 += f16 x f16 (k16), f32 += bf16 x bf16 (k16), f32 += tf32 x tf32 (k8), f32 or f16
    // += e4m3 / e5m2 x e4m3 / e5m2 (k32), and s32 += s8 / u8 x s8 / u8 (k32, {.satfinite}), whose
    // forms have no imm-scale or imm-trans operands. Other forms are named in the error.
    static const std::string k_forms = "the model follows wgmma.mma_async.sync.aligned m64nNkK with f32 or f16 += "
                                       "f16 x f16 (k16), f32 += bf16 x bf16 (k16), f32 += tf32 x tf32 (k8), f32 "
                                       "or f16 += e4m3/e5m2 x e4m3/e5m2 (k32) and s32 += s8/u8 x s8/u8 (k32)";
    const std::string& shape = in.parts.size() > 4 ? in.parts[4] : std::string();
    const std::size_t k_at = shape.find('k');
    const bool satfinite = in.parts.size() == 9 && in.parts[8] == "satfinite";
    if ((in.parts.size() != 8 && !satfinite) || in.parts[1] != "mma_async" || in.parts[2] != "sync" ||
        in.parts[3] != "aligned" || shape.rfind("m64n", 0) != 0 || k_at == std::string::npos || k_at <= 4)
      reject("unsupported instruction '" + in.opcode + "' (" + k_forms + ")");
    const auto number = [](const std::string& text) {
      return !text.empty() && text.size() <= 3 && text.find_first_not_of("0123456789") == std::string::npos
                 ? std::stoi(text)
                 : 0;
    };
    const int n = number(shape.substr(4, k_at - 4)), k = number(shape.substr(k_at + 1));
    if (n < 8 || n > 256 || n % 8 != 0) reject("unsupported wgmma shape '" + shape + "'");
    const std::string &dtype = in.parts[5], &atype = in.parts[6], &btype = in.parts[7];
    const value_type a_type = matrix_element_type(atype), b_type = matrix_element_type(btype);
    const bool sixteen = a_type.bits == 16;
    const bool eight = is_fp8(a_type), integer = is_int8(a_type);
    const bool types_ok = integer
                              ? is_int8(b_type) && dtype == "s32"
                              : !satfinite && a_type.bits != 0 && (eight ? is_fp8(b_type) : atype == btype) &&
                                    (dtype == "f32" || (dtype == "f16" && (a_type.cls == type_class::f16 || eight)));
    if (!types_ok) reject("unsupported instruction '" + in.opcode + "' (" + k_forms + ")");
    if (k * a_type.bits != 256) // every form reads 32 bytes of each row of A and B
      reject("unsupported wgmma shape '" + shape + "' for " + atype + " (k" + std::to_string(256 / a_type.bits) +
             " is its K)");
    const bool a_in_registers = in.operands.size() > 1 && in.operands[1].kind == operand_kind::vector;
    const std::size_t operands = integer ? 4 : sixteen ? (a_in_registers ? 7 : 8) : 6;
    if (in.operands.size() != operands)
      reject(in.opcode + " takes " + std::to_string(operands) + " operands" +
             (a_in_registers ? " with A in registers" : ""));
    for (std::size_t i = 4; i < operands; ++i) {
      const operand& o = in.operands[i];
      if (o.kind != operand_kind::immediate)
        reject(in.opcode + ": operand " + std::to_string(i + 1) + " must be an immediate");
      if (i < 6 && o.value != 1 && o.value != -1) reject(in.opcode + ": imm-scale must be 1 or -1");
      if (i >= 6 && o.value != 0 && o.value != 1) reject(in.opcode + ": imm-trans must be 0 or 1");
    }
    d.flag = a_in_registers;
    d.code = opcode::wgmma;
    d.count = static_cast<std::uint8_t>(n / 8);
    d.type = integer          ? value_type{32, type_class::sint}
             : dtype == "f32" ? value_type{32, type_class::flt}
                              : value_type{16, type_class::f16};
    d.type2 = a_type;
    d.type3 = b_type;
    // bit 0: negated (imm-scale -1); bit 1: MN-major (imm-trans 1; A's only where A is in shared
    // memory); mode bit 2: .satfinite (s32 results clamped, else they wrap)
    const bool trans_a = sixteen && !a_in_registers && in.operands[6].value == 1;
    const bool trans_b = sixteen && in.operands[a_in_registers ? 6 : 7].value == 1;
    if (integer) {
      d.mode = satfinite ? 4 : 0;
    } else {
      d.mode = static_cast<std::uint8_t>((in.operands[4].value < 0 ? 1 : 0) | (trans_a ? 2 : 0));
      d.mode2 = static_cast<std::uint8_t>((in.operands[5].value < 0 ? 1 : 0) | (trans_b ? 2 : 0));
    }
    d.op[0] = destination(in.operands[0]);
    const int accumulators = n * d.type.bits / 64; // 64 x N over 128 threads, 32-bit registers
    if (d.op[0].type != operand_type::vec || static_cast<int>(d.op[0].count) != accumulators)
      reject(in.opcode + " needs " + std::to_string(accumulators) + " accumulator registers");
    d.op[1] = source(in.operands[1]);
    if (a_in_registers && (d.op[1].type != operand_type::vec || d.op[1].count != 4))
      reject(in.opcode + " with A in registers needs four A registers (each " + std::to_string(32 / a_type.bits) + " " +
             atype + " value" + (a_type.bits == 32 ? "" : "s") + ")");
    d.op[2] = source(in.operands[2]);
    d.op[3] = source(in.operands[3]); // scale-d: a predicate or an immediate
    d.space = state_space::shared;
    traced(d);
  }

  void decode_warp(const instruction& in, decoded_instruction& d) {
    const std::string& op = in.parts[0];
    if (op == "activemask") {
      if (in.opcode != "activemask.b32") reject_opcode(in);
      d.code = opcode::activemask;
      d.type = {32, type_class::bits};
      d.mask = 0xffffffffu;
      plain(in, d, 1);
      return;
    }
    if (in.parts.size() < 3 || (in.parts[1] != "sync" && op != "match")) reject_opcode(in);
    d.type = last_type(in);
    d.mask = mask_bits(d.type.bits);
    const std::string& mode = in.parts[2];
    if (op == "shfl") {
      // shfl.sync.MODE.b32 d[|p], a, b, c, membermask
      static const std::vector<std::string> k = {"up", "down", "bfly", "idx"};
      const auto m = std::find(k.begin(), k.end(), mode);
      if (m == k.end() || in.parts.size() != 4 || d.type.bits != 32) reject_opcode(in);
      d.code = opcode::shfl;
      d.mode = static_cast<std::uint8_t>(m - k.begin());
      const bool two = in.operands.size() == 6;
      if (!two && in.operands.size() != 5) reject(in.opcode + " has the wrong number of operands");
      d.flag = two;
      d.op[0] = destination(in.operands[0]);
      d.op[1] = two ? destination(in.operands[1]) : decoded_operand{operand_type::sink};
      for (std::size_t i = 0; i < 4; ++i) d.op[2 + i] = source(in.operands[(two ? 2 : 1) + i]);
    } else if (op == "vote") {
      // vote.sync.all|any|uni.pred d, {!}a, membermask; vote.sync.ballot.b32 d, {!}a, membermask
      static const std::vector<std::string> k = {"all", "any", "uni", "ballot"};
      const auto m = std::find(k.begin(), k.end(), mode);
      if (m == k.end() || in.parts.size() != 4) reject_opcode(in);
      d.code = opcode::vote;
      d.mode = static_cast<std::uint8_t>(m - k.begin());
      if (in.operands.size() != 3) reject(in.opcode + " takes 3 operands");
      d.op[0] = destination(in.operands[0]);
      d.op[1] = predicate(in.operands[1], d.mode2); // mode2: read negated
      d.op[2] = source(in.operands[2]);
    } else if (op == "match") {
      // match.any.sync.b32|b64 d, a, membermask; match.all.sync.b32|b64 d[|p], a, membermask
      if (in.parts.size() != 4 || in.parts[2] != "sync" || (in.parts[1] != "any" && in.parts[1] != "all"))
        reject_opcode(in);
      d.code = opcode::match;
      d.mode = in.parts[1] == "all" ? 1 : 0;
      const bool two = in.operands.size() == 4;
      d.flag = two;
      d.op[0] = destination(arg(in, 0));
      d.op[1] = two ? destination(in.operands[1]) : decoded_operand{operand_type::sink};
      d.op[2] = source(arg(in, two ? 2 : 1));
      d.op[3] = source(arg(in, two ? 3 : 2));
    } else {
      // redux.sync.add|min|max.u32|s32, redux.sync.and|or|xor.b32 d, a, membermask
      static const std::vector<std::string> k = {"add", "min", "max", "and", "or", "xor"};
      const auto m = std::find(k.begin(), k.end(), mode);
      if (m == k.end() || in.parts.size() != 4 || d.type.bits != 32) reject_opcode(in);
      d.code = opcode::redux;
      d.mode = static_cast<std::uint8_t>(m - k.begin());
      plain(in, d, 3);
    }
  }

  const module& m_m;
  const entry& m_e;
  program& m_p;
  std::unordered_map<std::string, std::uint32_t> m_regs;
  std::unordered_map<std::string, int> m_declared;
  std::map<std::string, std::uint32_t> m_shared_at;
  std::map<std::string, int> m_params;
  std::map<std::string, std::uint32_t> m_const_at;
  std::map<std::string, std::uint32_t> m_local_at;
};

} // namespace

program prepare(const module& m, const entry& e) {
  program p;
  decoder(m, e, p).run();
  return p;
}

} // namespace bb::ptx
