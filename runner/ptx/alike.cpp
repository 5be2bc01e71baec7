#include "runner/ptx/alike.hpp"

#include <vector>

namespace bb::ptx {

namespace {

/// The registers an operand names: itself, a vector's elements, a memory operand's base.
template <class F> void each_register(const program& p, const decoded_operand& o, F&& f) {
  switch (o.type) {
  case operand_type::reg: f(o.index); break;
  case operand_type::mem:
    if (o.index != k_no_register) f(o.index);
    break;
  case operand_type::vec:
    for (std::uint32_t i = 0; i < o.count; ++i) each_register(p, p.elements[o.index + i], f);
    break;
  default: break;
  }
}

/// Whether op[0] is written (else read), and op[1] (setp's, shfl's and match's second result).
bool writes_first(opcode c) {
  switch (c) {
  case opcode::st:
  case opcode::red:
  case opcode::cp_async:
  case opcode::tma_load:
  case opcode::tma_store:
  case opcode::stmatrix:
  case opcode::warp_sync:
  case opcode::bar:
  case opcode::bra:
  case opcode::exit:
  case opcode::nop:
  case opcode::unsupported: return false;
  default: return true;
  }
}
bool writes_second(opcode c) {
  return c == opcode::setp || c == opcode::shfl || c == opcode::match || c == opcode::elect;
}

bool is_memory(opcode c) {
  return c == opcode::ld || c == opcode::st || c == opcode::atom || c == opcode::red || c == opcode::cp_async ||
         c == opcode::ldmatrix || c == opcode::stmatrix;
}

/// The operand that holds a warp-wide instruction's member mask, or -1.
int member_mask(opcode c) {
  switch (c) {
  case opcode::shfl: return 5;
  case opcode::vote:
  case opcode::redux:
  case opcode::elect: return 2;
  case opcode::match: return 3;
  case opcode::warp_sync: return 0;
  default: return -1;
  }
}

class tracker {
public:
  explicit tracker(const program& p) : m_p(p), m_differs(p.registers, false) {
    for (const auto& [index, s] : p.specials)
      if (s == special_register::ctaid_x || s == special_register::ctaid_y || s == special_register::ctaid_z)
        m_differs[index] = true;
  }

  alike_blocks run() {
    while (pass()) {
    }
    for (std::uint32_t i = 0; i < m_p.code.size(); ++i)
      if (const char* why = differs_at(m_p.code[i]); why != nullptr) return {false, i, why};
    return {true, 0, {}};
  }

private:
  [[nodiscard]] bool reg(std::uint32_t r) const { return r != k_no_register && r < m_differs.size() && m_differs[r]; }
  /// Whether a read operand's value may differ between blocks.
  [[nodiscard]] bool operand(const decoded_operand& o) const {
    if (o.type == operand_type::clock) return true;
    bool any = false;
    each_register(m_p, o, [&](std::uint32_t r) { any = any || reg(r); });
    return any;
  }
  [[nodiscard]] bool guard(const decoded_instruction& in) const { return reg(in.guard); }

  /// Whether what memory instruction `in` reads from memory may differ between blocks.
  [[nodiscard]] bool memory_read(const decoded_instruction& in) const {
    switch (in.space) {
    case state_space::param:
    case state_space::constant: return false;
    case state_space::shared: return m_shared;
    case state_space::local: return m_local;
    default: return true; // global, or generic that may be global
    }
  }

  /// One pass over the code; true when anything new was found to differ.
  bool pass() {
    bool changed = false;
    const auto mark = [&](std::uint32_t r) {
      if (r < m_differs.size() && !m_differs[r]) m_differs[r] = changed = true;
    };
    const auto mark_memory = [&](state_space s) {
      const bool shared = s == state_space::shared || s == state_space::generic;
      const bool local = s == state_space::local || s == state_space::generic;
      if (shared && !m_shared) m_shared = changed = true;
      if (local && !m_local) m_local = changed = true;
    };
    for (const decoded_instruction& in : m_p.code) {
      const bool first_written = writes_first(in.code) || (in.code == opcode::bar && in.mode != 0), // bar.red
          second_written = writes_second(in.code);
      bool inputs = guard(in);
      for (std::size_t k = 0; k < in.op.size(); ++k) {
        if ((k == 0 && first_written) || (k == 1 && second_written)) continue;
        inputs = inputs || operand(in.op[k]);
      }
      const bool reads_memory = in.code == opcode::ld || in.code == opcode::atom || in.code == opcode::ldmatrix ||
                                in.code == opcode::wgmma; // its operands, from shared memory
      if (reads_memory && memory_read(in)) inputs = true;
      if (in.code == opcode::atom && in.space != state_space::shared && in.space != state_space::local)
        inputs = true; // the old value of a global atomic: other blocks' updates
      // What a store, atomic or copy leaves in shared or local memory.
      if (in.code == opcode::cp_async || in.code == opcode::tma_load)
        mark_memory(state_space::shared); // bytes from global memory
      else if (is_memory(in.code) && in.code != opcode::ld && in.code != opcode::ldmatrix && inputs)
        mark_memory(in.space);
      if (!inputs) continue;
      if (first_written) each_register(m_p, in.op[0], mark);
      if (second_written) each_register(m_p, in.op[1], mark);
    }
    return changed;
  }

  /// Why instruction `in` may make blocks differ, or null.
  [[nodiscard]] const char* differs_at(const decoded_instruction& in) const {
    const bool control = in.code == opcode::bra || in.code == opcode::exit || in.code == opcode::bar ||
                         in.code >= opcode::shfl;
    if (control && guard(in))
      return "it is guarded by a predicate that depends on %ctaid or on global memory, so blocks may take "
             "different paths";
    if (const int m = member_mask(in.code); m >= 0 && operand(in.op[static_cast<std::size_t>(m)]))
      return "its member mask depends on %ctaid or on global memory";
    if (in.code == opcode::wgmma && ((!in.flag && operand(in.op[1])) || operand(in.op[2]))) // flag: A's values
      return "its shared-memory descriptors depend on %ctaid or on global memory";
    if ((in.code == opcode::tma_load || in.code == opcode::tma_store || in.code == opcode::mbarrier) &&
        (operand(in.op[in.code == opcode::mbarrier ? 1 : 0]) || guard(in)))
      return "a TMA copy or an mbarrier at an address, or under a guard, that depends on %ctaid or on global memory";
    if (!is_memory(in.code)) return nullptr;
    const bool shared = in.space == state_space::shared || in.space == state_space::generic ||
                        in.code == opcode::cp_async || in.code == opcode::ldmatrix || in.code == opcode::stmatrix;
    if (!shared) return nullptr;
    const decoded_operand& address = in.code == opcode::cp_async ? in.op[0] : in.op[1];
    if (operand(address)) return "its shared-memory address depends on %ctaid or on global memory";
    if (guard(in))
      return "this shared-memory access is guarded by a predicate that depends on %ctaid or on "
             "global memory";
    return nullptr;
  }

  const program& m_p;
  std::vector<bool> m_differs;
  bool m_shared = false, m_local = false;
};

} // namespace

alike_blocks blocks_alike(const program& p) { return tracker(p).run(); }

} // namespace bb::ptx
