#include "runner/ptx/run.hpp"

#include <algorithm>
#include <bit>
#include <cfenv>
#include <cmath>
#include <array>
#include <cstring>
#include <limits>
#include <map>
#include <optional>

#include "runner/ptx/numbers.hpp"
#include "runner/ptx/tensor_map.hpp"

namespace bb::ptx {

namespace {

/// Where generic addresses (cvta.shared, ld without a state space) see the shared window and the
/// parameter buffer: far above any buffer a caller registers, so that one address is never both.
constexpr std::uint64_t k_generic_shared = 0x7e00'0000'0000ull;
constexpr std::uint64_t k_generic_param = 0x7f00'0000'0000ull;
constexpr std::uint64_t k_generic_const = 0x7d00'0000'0000ull;
constexpr std::uint64_t k_generic_local = 0x7c00'0000'0000ull; // each thread's own
constexpr std::uint64_t k_window = 1ull << 32;
constexpr std::uint32_t k_nsmid = 132; // an H100 SXM's SM count, for %nsmid

/// at_mbarrier: at an mbarrier wait whose phase has not completed; it runs again once it has.
/// at_named: at a barrier for part of the CTA (bar.sync a, b) until b threads have arrived at it.
enum class thread_state : std::uint8_t { running, at_barrier, at_warp, at_mbarrier, at_named, exited };

struct thread {
  std::uint32_t pc = 0;
  thread_state state = thread_state::running;
  std::uint8_t barrier = 0; ///< at_named: which
  bool reducing = false;    ///< at_barrier through bar.red: its result is written at the release
};

/// A barrier for part of the CTA: the threads it waits for (the first arrival's count) and those
/// arrived in its current phase.
struct named_barrier {
  std::uint32_t expected = 0, arrived = 0;
};

class cta_runner {
public:
  cta_runner(const program& p, const launch& l, global_memory& g) : m_p(p), m_l(l), m_global(g) {
    if (l.params.size() < static_cast<std::size_t>(p.param_bytes))
      throw ptx_error("the parameter buffer has " + std::to_string(l.params.size()) + " bytes; " + p.name + " takes " +
                          std::to_string(p.param_bytes),
                      p.ptx_line);
    m_result.shared_bytes = p.static_shared_bytes + l.dynamic_shared_bytes;
    m_shared.assign(m_result.shared_bytes, 0);
  }

  cta_result run() {
    const auto& b = m_l.block;
    m_n = b[0] * b[1] * b[2];
    m_threads.assign(m_n, thread{});
    m_regs.assign(std::size_t{m_n} * m_p.registers, 0);
    m_arrivals.assign(std::size_t{m_n} * m_p.traced, 0);
    m_local.assign(std::size_t{m_n} * m_p.local_bytes, 0);
    for (std::uint32_t i = 0; i < m_n; ++i) start(i);
    const std::uint32_t warps = (m_n + model::k_warp_lanes - 1) / model::k_warp_lanes;
    for (;;) {
      for (std::uint32_t w = 0; w < warps; ++w) {
        const std::uint32_t first = w * model::k_warp_lanes, end = std::min(m_n, first + model::k_warp_lanes);
        do {
          for (std::uint32_t t = first; t < end; ++t)
            if (m_threads[t].state == thread_state::running) run_thread(t);
        } while (resolve(w));
      }
      // A warpgroup's wgmma, run by its last warp to arrive, sets its earlier warps going again.
      if (std::any_of(m_threads.begin(), m_threads.end(),
                      [](const thread& t) { return t.state == thread_state::running; }))
        continue;
      // Threads at an mbarrier whose phase has completed since go on (a producer ran after them).
      bool woken = false, parked = false;
      for (std::uint32_t t = 0; t < m_n; ++t) {
        if (m_threads[t].state != thread_state::at_mbarrier) continue;
        if (wait_done(t, m_p.code[m_threads[t].pc])) {
          m_threads[t].state = thread_state::running;
          woken = true;
        } else {
          parked = true;
        }
      }
      if (woken) continue;
      bool any = false;
      for (std::uint32_t t = 0; t < m_n; ++t) {
        if (m_threads[t].state == thread_state::at_warp) stuck(t);
        any = any || m_threads[t].state == thread_state::at_barrier;
      }
      if (!any)
        for (std::uint32_t t = 0; t < m_n; ++t)
          if (m_threads[t].state == thread_state::at_named) {
            const named_barrier& waited = m_named[m_threads[t].barrier];
            fail(m_threads[t].pc - 1, "thread " + std::to_string(t) + " waits at barrier " +
                                          std::to_string(m_threads[t].barrier) + " for " +
                                          std::to_string(waited.expected) + " threads, and only " +
                                          std::to_string(waited.arrived) + " ever arrive");
          }
      if (parked)
        for (std::uint32_t t = 0; t < m_n; ++t)
          if (m_threads[t].state == thread_state::at_mbarrier)
            fail(m_threads[t].pc, "thread " + std::to_string(t) + " waits on an mbarrier whose phase never " +
                                      "completes (no thread left to arrive or no copy left to complete it)");
      if (!any) break;
      if (m_reduction.arrived != 0) finish_reduction();
      for (thread& t : m_threads)
        if (t.state == thread_state::at_barrier) t.state = thread_state::running;
    }
    m_result.steps = m_steps;
    return std::move(m_result);
  }

private:
  void start(std::uint32_t i) {
    const auto& b = m_l.block;
    std::uint64_t* r = regs(i);
    const std::uint32_t lane = i % model::k_warp_lanes;
    for (const auto& [index, s] : m_p.specials) {
      std::uint64_t v = 0;
      switch (s) {
      case special_register::tid_x: v = i % b[0]; break;
      case special_register::tid_y: v = i / b[0] % b[1]; break;
      case special_register::tid_z: v = i / (b[0] * b[1]); break;
      case special_register::ntid_x: v = b[0]; break;
      case special_register::ntid_y: v = b[1]; break;
      case special_register::ntid_z: v = b[2]; break;
      case special_register::ctaid_x: v = m_l.cta[0]; break;
      case special_register::ctaid_y: v = m_l.cta[1]; break;
      case special_register::ctaid_z: v = m_l.cta[2]; break;
      case special_register::nctaid_x: v = m_l.grid[0]; break;
      case special_register::nctaid_y: v = m_l.grid[1]; break;
      case special_register::nctaid_z: v = m_l.grid[2]; break;
      case special_register::laneid: v = lane; break;
      case special_register::warpid: v = i / model::k_warp_lanes; break;
      case special_register::nwarpid: v = (m_n + model::k_warp_lanes - 1) / model::k_warp_lanes; break;
      case special_register::smid: v = 0; break;
      case special_register::nsmid: v = k_nsmid; break;
      case special_register::gridid: v = 0; break;
      case special_register::lanemask_eq: v = 1u << lane; break;
      case special_register::lanemask_lt: v = (1u << lane) - 1u; break;
      case special_register::lanemask_le: v = (2ull << lane) - 1u; break;
      case special_register::lanemask_gt: v = ~((2ull << lane) - 1u) & 0xffffffffu; break;
      case special_register::lanemask_ge: v = ~((1u << lane) - 1u); break;
      case special_register::dynamic_smem_size: v = m_l.dynamic_shared_bytes; break;
      case special_register::total_smem_size: v = m_result.shared_bytes; break;
      }
      r[index] = v;
    }
  }

  std::uint64_t* regs(std::uint32_t t) { return m_regs.data() + std::size_t{t} * m_p.registers; }

  [[noreturn]] void fail(std::uint32_t pc, const std::string& what) const {
    const std::size_t i = std::min<std::size_t>(pc, m_p.location.size() - 1);
    const auto& [ptx_line, file, line] = m_p.location[i];
    std::string where = "PTX line " + std::to_string(ptx_line);
    if (line > 0) {
      const auto f = m_p.files.find(file);
      where += " (" + (f == m_p.files.end() ? "file " + std::to_string(file) : f->second) + ":" + std::to_string(line) +
               ")";
    }
    throw ptx_error(where + ": " + what, ptx_line);
  }

  /// Thread t arrives at the named barrier of `in` (bar.sync / bar.arrive a, b); false when it
  /// waits there (at_named, pc past it). The b-th arrival completes the phase and sets its waiters
  /// going.
  bool arrive_named(std::uint32_t t, const std::uint64_t* r, const decoded_instruction& in, std::uint32_t pc) {
    const std::uint64_t id = get(r, in.op[0], 32) & 0xffffffffu, count = get(r, in.op[1], 32) & 0xffffffffu;
    const std::uint64_t warps_threads = (m_n + model::k_warp_lanes - 1) / model::k_warp_lanes * model::k_warp_lanes;
    if (id >= m_named.size()) fail(pc, "barrier " + std::to_string(id) + " (a CTA has barriers 0 to 15)");
    if (count == 0 || count % model::k_warp_lanes != 0 || count > warps_threads)
      fail(pc, "a barrier for " + std::to_string(count) + " threads (a multiple of 32, at most the CTA's " +
                   std::to_string(warps_threads) + ")");
    named_barrier& b = m_named[id];
    if (b.arrived == 0) b.expected = static_cast<std::uint32_t>(count);
    if (b.expected != count)
      fail(pc, "thread " + std::to_string(t) + " arrives at barrier " + std::to_string(id) + " for " +
                   std::to_string(count) + " threads while it waits for " + std::to_string(b.expected));
    thread& th = m_threads[t];
    const bool waits = !in.flag;
    if (waits) {
      th.state = thread_state::at_named;
      th.barrier = static_cast<std::uint8_t>(id);
      th.pc = pc + 1;
    }
    // Threads of a warp arrive one at a time here; the hardware counts the warp's 32 at once, the
    // same total where whole warps arrive.
    if (++b.arrived == b.expected) {
      b.arrived = 0;
      for (thread& other : m_threads)
        if (other.state == thread_state::at_named && other.barrier == id) other.state = thread_state::running;
    }
    return !waits;
  }

  /// Thread t arrives at bar.red (__syncthreads_count / _and / _or): its predicate is counted, and
  /// it waits at the CTA's barrier; finish_reduction() writes every arrival's result.
  void arrive_reduction(std::uint32_t t, const std::uint64_t* r, const decoded_instruction& in, std::uint32_t pc) {
    if (m_reduction.arrived == 0) m_reduction.kind = in.mode;
    if (m_reduction.kind != in.mode)
      fail(pc, "thread " + std::to_string(t) + " reaches a bar.red of another operation than the CTA's other threads");
    ++m_reduction.arrived;
    if (((get(r, in.op[2], 1) & 1) ^ in.mode2) != 0) ++m_reduction.true_count;
    thread& th = m_threads[t];
    th.state = thread_state::at_barrier;
    th.reducing = true;
    th.pc = pc + 1;
  }

  /// The CTA's barrier releases a bar.red: each thread that arrived gets the count of true
  /// predicates (popc), whether all were true (and) or any was (or). Every thread waiting there
  /// must have come through the same bar.red.
  void finish_reduction() {
    std::uint32_t waiting = 0, pc = 0;
    for (const thread& th : m_threads) {
      if (th.state == thread_state::at_barrier) ++waiting;
      if (th.reducing) pc = th.pc - 1;
    }
    if (waiting != m_reduction.arrived)
      fail(pc, std::to_string(m_reduction.arrived) + " threads wait at bar.red and " +
                   std::to_string(waiting - m_reduction.arrived) + " at another barrier of the CTA");
    const std::uint64_t value = m_reduction.kind == 1   ? m_reduction.true_count
                                : m_reduction.kind == 2 ? (m_reduction.true_count == m_reduction.arrived ? 1 : 0)
                                                        : (m_reduction.true_count != 0 ? 1 : 0);
    for (std::uint32_t t = 0; t < m_n; ++t) {
      thread& th = m_threads[t];
      if (!th.reducing) continue;
      set(regs(t), m_p.code[th.pc - 1].op[0], value, m_reduction.kind == 1 ? 32 : 1);
      th.reducing = false;
    }
    m_reduction = {};
  }

  [[noreturn]] void stuck(std::uint32_t t) const {
    const std::uint32_t pc = m_threads[t].pc;
    fail(pc, "lane " + std::to_string(t % model::k_warp_lanes) + " of warp " + std::to_string(t / model::k_warp_lanes) +
                 " waits at '" + m_p.opcodes[pc] + "' for lanes that never reach it");
  }

  // --- operands -----------------------------------------------------------------------------

  /// Registers and immediates inline, the rest out of line: the interpreter's hottest path.
  /// A memory operand's address: [reg + imm] or [imm].
  [[gnu::always_inline]] static std::uint64_t address_of(const std::uint64_t* r, const decoded_operand& o) {
    return static_cast<std::uint64_t>(o.imm) + (o.index != k_no_register ? r[o.index] : 0);
  }

  [[gnu::always_inline]] std::uint64_t get(const std::uint64_t* r, const decoded_operand& o, int bits) const {
    if (o.type == operand_type::reg) return r[o.index];
    if (o.type == operand_type::imm) return static_cast<std::uint64_t>(o.imm);
    return get_other(r, o, bits);
  }
  [[gnu::noinline]] std::uint64_t get_other(const std::uint64_t* r, const decoded_operand& o, int bits) const {
    switch (o.type) {
    case operand_type::clock: return m_steps;
    case operand_type::vec: {
      const int each = bits / static_cast<int>(o.count);
      std::uint64_t v = 0;
      for (std::uint32_t i = 0; i < o.count; ++i)
        v |= (get(r, m_p.elements[o.index + i], each) & mask_of(each)) << (static_cast<int>(i) * each);
      return v;
    }
    default: return 0;
    }
  }
  /// A source value in the instruction's type: masked, and sign-extended for signed types.
  [[gnu::always_inline]] std::uint64_t src(const std::uint64_t* r, const decoded_instruction& in,
                                           const decoded_operand& o) const {
    const std::uint64_t v = get(r, o, in.type.bits) & in.mask;
    return in.type.cls == type_class::sint ? static_cast<std::uint64_t>(sext(v, in.type.bits)) : v;
  }
  [[gnu::always_inline]] void set(std::uint64_t* r, const decoded_operand& o, std::uint64_t v, int bits) {
    if (o.type == operand_type::reg)
      r[o.index] = v & o.mask;
    else
      set_other(r, o, v, bits);
  }
  [[gnu::noinline]] void set_other(std::uint64_t* r, const decoded_operand& o, std::uint64_t v, int bits) {
    if (o.type == operand_type::vec) {
      const int each = bits / static_cast<int>(o.count);
      for (std::uint32_t i = 0; i < o.count; ++i)
        set(r, m_p.elements[o.index + i], (v >> (static_cast<int>(i) * each)) & mask_of(each), each);
    }
  }
  std::uint32_t arrival(std::uint32_t t, const decoded_instruction& in) const {
    return m_arrivals[std::size_t{t} * m_p.traced + in.trace_slot] - 1;
  }

  // --- the interpreter loop -----------------------------------------------------------------

  void run_thread(std::uint32_t t) {
    thread& th = m_threads[t];
    std::uint64_t* r = regs(t);
    std::uint32_t* arrivals = m_arrivals.data() + std::size_t{t} * m_p.traced;
    const decoded_instruction* code = m_p.code.data();
    const auto size = static_cast<std::uint32_t>(m_p.code.size());
    std::uint32_t pc = th.pc;
    for (;;) {
      if (m_steps++ >= m_l.step_budget)
        fail(pc, "the step budget of " + std::to_string(m_l.step_budget) +
                     " instructions per CTA is spent (a loop that does not end?)");
      if (pc >= size) {
        th.state = thread_state::exited; // fell off the end: as ret
        break;
      }
      const decoded_instruction& in = code[pc];
      if (in.trace_slot != k_no_register) ++arrivals[in.trace_slot];
      if (in.guard != k_no_register && (r[in.guard] != 0) == in.guard_negated) {
        ++pc;
        continue;
      }
      if (in.code == opcode::bra) {
        pc = in.target;
        continue;
      }
      if (in.code == opcode::exit) {
        th.state = thread_state::exited;
        break;
      }
      if (in.code == opcode::bar) {
        if (in.mode != 0) { // bar.red
          arrive_reduction(t, r, in, pc);
          return;
        }
        if (in.op[1].type == operand_type::none) { // the CTA's: all go on once none can run
          th.state = thread_state::at_barrier;
          th.pc = pc + 1;
          return;
        }
        if (arrive_named(t, r, in, pc)) {
          ++pc;
          continue;
        }
        return;
      }
      if (in.code >= opcode::shfl) {
        th.state = thread_state::at_warp; // runs when the lanes it names are all here
        th.pc = pc;
        return;
      }
      if (in.code == opcode::unsupported) fail(pc, m_p.errors[pc]);
      if (in.code == opcode::mbarrier && !wait_done(t, in)) {
        th.state = thread_state::at_mbarrier; // runs the wait again once the phase completes
        th.pc = pc;
        return;
      }
      execute(t, r, in, pc);
      ++pc;
    }
    th.pc = pc;
  }

  [[gnu::always_inline]] void execute(std::uint32_t t, std::uint64_t* r, const decoded_instruction& in,
                                      std::uint32_t pc) {
    const int bits = in.type.bits;
    const bool is_signed = in.type.cls == type_class::sint;
    switch (in.code) {
    case opcode::nop: return;
    case opcode::mov: set(r, in.op[0], get(r, in.op[1], bits) & in.mask, bits); return;
    case opcode::add: set(r, in.op[0], src(r, in, in.op[1]) + src(r, in, in.op[2]), bits); return;
    case opcode::sub: set(r, in.op[0], src(r, in, in.op[1]) - src(r, in, in.op[2]), bits); return;
    case opcode::mul_lo: set(r, in.op[0], src(r, in, in.op[1]) * src(r, in, in.op[2]), bits); return;
    case opcode::mul_hi:
      set(r, in.op[0], mul_hi(src(r, in, in.op[1]), src(r, in, in.op[2]), bits, is_signed), bits);
      return;
    case opcode::mul_wide: // the operands are extended, so the product of two 32-bit values is exact
      set(r, in.op[0], (src(r, in, in.op[1]) * src(r, in, in.op[2])) & mask_of(2 * bits), 2 * bits);
      return;
    case opcode::mad_lo:
      set(r, in.op[0], src(r, in, in.op[1]) * src(r, in, in.op[2]) + src(r, in, in.op[3]), bits);
      return;
    case opcode::mad_hi:
      set(r, in.op[0], mul_hi(src(r, in, in.op[1]), src(r, in, in.op[2]), bits, is_signed) + src(r, in, in.op[3]),
          bits);
      return;
    case opcode::mad_wide:
      set(r, in.op[0], (src(r, in, in.op[1]) * src(r, in, in.op[2]) + get(r, in.op[3], 2 * bits)) & mask_of(2 * bits),
          2 * bits);
      return;
    case opcode::div:
    case opcode::rem: set(r, in.op[0], divide(in, pc, src(r, in, in.op[1]), src(r, in, in.op[2])), bits); return;
    case opcode::min:
    case opcode::max: {
      const std::uint64_t a = src(r, in, in.op[1]), b = src(r, in, in.op[2]);
      const bool less = is_signed ? static_cast<std::int64_t>(a) < static_cast<std::int64_t>(b) : a < b;
      set(r, in.op[0], (in.code == opcode::min) == less ? a : b, bits);
      return;
    }
    case opcode::neg: set(r, in.op[0], 0 - src(r, in, in.op[1]), bits); return;
    case opcode::abs: {
      const std::uint64_t a = src(r, in, in.op[1]);
      set(r, in.op[0], is_signed && static_cast<std::int64_t>(a) < 0 ? 0 - a : a, bits);
      return;
    }
    case opcode::dp4a: {
      const std::uint64_t a = get(r, in.op[1], 32), b = get(r, in.op[2], 32);
      std::uint64_t sum = get(r, in.op[3], 32);
      for (int i = 0; i < 4; ++i) {
        const std::uint64_t x = a >> (8 * i) & 0xff, y = b >> (8 * i) & 0xff;
        const std::int64_t xs = (in.mode & 1) != 0 ? sext(x, 8) : static_cast<std::int64_t>(x);
        const std::int64_t ys = (in.mode & 2) != 0 ? sext(y, 8) : static_cast<std::int64_t>(y);
        sum += static_cast<std::uint64_t>(xs * ys);
      }
      set(r, in.op[0], sum & 0xffffffffu, 32);
      return;
    }
    case opcode::sad: {
      const std::uint64_t a = src(r, in, in.op[1]), b = src(r, in, in.op[2]);
      const bool less = is_signed ? static_cast<std::int64_t>(a) < static_cast<std::int64_t>(b) : a < b;
      set(r, in.op[0], (less ? b - a : a - b) + src(r, in, in.op[3]), bits);
      return;
    }
    case opcode::band: set(r, in.op[0], get(r, in.op[1], bits) & get(r, in.op[2], bits) & in.mask, bits); return;
    case opcode::bor: set(r, in.op[0], (get(r, in.op[1], bits) | get(r, in.op[2], bits)) & in.mask, bits); return;
    case opcode::bxor: set(r, in.op[0], (get(r, in.op[1], bits) ^ get(r, in.op[2], bits)) & in.mask, bits); return;
    case opcode::bnot: set(r, in.op[0], ~get(r, in.op[1], bits) & in.mask, bits); return;
    case opcode::cnot: set(r, in.op[0], (get(r, in.op[1], bits) & in.mask) == 0 ? 1 : 0, bits); return;
    case opcode::shl: {
      const std::uint64_t s = get(r, in.op[2], 32) & 0xffffffffu;
      set(r, in.op[0], s >= static_cast<std::uint64_t>(bits) ? 0 : (get(r, in.op[1], bits) << s) & in.mask, bits);
      return;
    }
    case opcode::shr: {
      const std::uint64_t s = get(r, in.op[2], 32) & 0xffffffffu, a = src(r, in, in.op[1]);
      if (is_signed)
        set(r, in.op[0],
            static_cast<std::uint64_t>(static_cast<std::int64_t>(a) >> std::min<std::uint64_t>(s, 63)) & in.mask, bits);
      else
        set(r, in.op[0], s >= static_cast<std::uint64_t>(bits) ? 0 : a >> s, bits);
      return;
    }
    case opcode::shf_l:
    case opcode::shf_r: {
      const std::uint64_t a = get(r, in.op[1], 32) & 0xffffffffu, b = get(r, in.op[2], 32) & 0xffffffffu;
      const std::uint64_t c = get(r, in.op[3], 32) & 0xffffffffu;
      const std::uint64_t n = in.flag ? std::min<std::uint64_t>(c, 32) : c & 31, both = b << 32 | a;
      set(r, in.op[0], in.code == opcode::shf_l ? (both << n) >> 32 : (both >> n) & 0xffffffffu, 32);
      return;
    }
    case opcode::bfe: {
      const std::uint64_t a = get(r, in.op[1], bits) & in.mask;
      const std::uint64_t pos = get(r, in.op[2], 32) & 0xff, len = get(r, in.op[3], 32) & 0xff;
      const auto msb = static_cast<std::uint64_t>(bits - 1);
      const std::uint64_t sbit = is_signed && len != 0 ? a >> std::min(pos + len - 1, msb) & 1 : 0;
      std::uint64_t d = 0;
      for (std::uint64_t i = 0; i <= msb; ++i) d |= ((i < len && pos + i <= msb) ? a >> (pos + i) & 1 : sbit) << i;
      set(r, in.op[0], d, bits);
      return;
    }
    case opcode::bfi: {
      const std::uint64_t f = get(r, in.op[1], bits), pos = get(r, in.op[3], 32) & 0xff;
      const std::uint64_t len = get(r, in.op[4], 32) & 0xff;
      std::uint64_t d = get(r, in.op[2], bits) & in.mask;
      for (std::uint64_t i = 0; i < len && pos + i < static_cast<std::uint64_t>(bits); ++i)
        d = (d & ~(1ull << (pos + i))) | ((f >> i & 1) << (pos + i));
      set(r, in.op[0], d, bits);
      return;
    }
    case opcode::prmt: {
      const std::uint64_t both = (get(r, in.op[2], 32) & 0xffffffffu) << 32 | (get(r, in.op[1], 32) & 0xffffffffu);
      const std::uint64_t c = get(r, in.op[3], 32);
      std::uint64_t d = 0;
      for (int i = 0; i < 4; ++i) {
        const std::uint64_t sel = c >> (4 * i) & 0xf;
        std::uint64_t byte = both >> (8 * (sel & 7)) & 0xff;
        if ((sel & 8) != 0) byte = (byte & 0x80) != 0 ? 0xff : 0;
        d |= byte << (8 * i);
      }
      set(r, in.op[0], d, 32);
      return;
    }
    case opcode::popc:
      set(r, in.op[0], static_cast<std::uint64_t>(std::popcount(get(r, in.op[1], bits) & in.mask)), 32);
      return;
    case opcode::clz:
      set(r, in.op[0], static_cast<std::uint64_t>(std::countl_zero(get(r, in.op[1], bits) & in.mask) - (64 - bits)),
          32);
      return;
    case opcode::brev: {
      const std::uint64_t a = get(r, in.op[1], bits);
      std::uint64_t d = 0;
      for (int i = 0; i < bits; ++i) d |= (a >> i & 1) << (bits - 1 - i);
      set(r, in.op[0], d, bits);
      return;
    }
    case opcode::lop3: {
      const std::uint64_t a = get(r, in.op[1], bits), b = get(r, in.op[2], bits), c = get(r, in.op[3], bits);
      const std::uint64_t lut = get(r, in.op[4], 32);
      std::uint64_t d = 0;
      for (int k = 0; k < 8; ++k)
        if ((lut >> k & 1) != 0) d |= ((k & 4) != 0 ? a : ~a) & ((k & 2) != 0 ? b : ~b) & ((k & 1) != 0 ? c : ~c);
      set(r, in.op[0], d & in.mask, bits);
      return;
    }
    case opcode::setp: setp(r, in); return;
    case opcode::selp:
      set(r, in.op[0], get(r, in.op[(get(r, in.op[3], 1) & 1) != 0 ? 1 : 2], bits) & in.mask, bits);
      return;
    case opcode::slct: {
      const std::uint64_t c = get(r, in.op[3], 32) & 0xffffffffu;
      const bool first = in.type2.cls == type_class::flt ? std::bit_cast<float>(static_cast<std::uint32_t>(c)) >= 0.0f
                                                         : static_cast<std::int32_t>(c) >= 0;
      set(r, in.op[0], get(r, in.op[first ? 1 : 2], bits) & in.mask, bits);
      return;
    }
    case opcode::cvt:
      set(r, in.op[0], convert(in, get(r, in.op[1], in.type2.bits) & mask_of(in.type2.bits)), in.type.bits);
      return;
    case opcode::cvt_pack:
    case opcode::cvt_unpack: {
      const auto one = [&](std::uint64_t v) {
        double value = to_double(v, in.type2);
        if (in.mode2 != 0 && value < 0) value = 0; // .relu (NaN stays NaN)
        return from_double(value, in.type, in.mode);
      };
      const int width = in.type2.bits, out = in.type.bits; // of each of the two values, in and out
      std::uint64_t high = 0, low = 0;
      if (in.code == opcode::cvt_unpack || in.flag) { // one register holding both
        const std::uint64_t a = get(r, in.op[1], 2 * width);
        high = a >> width & mask_of(width);
        low = a & mask_of(width);
      } else {
        high = get(r, in.op[1], 32) & 0xffffffffu;
        low = get(r, in.op[2], 32) & 0xffffffffu;
      }
      set(r, in.op[0], one(high) << out | one(low), 2 * out);
      return;
    }
    case opcode::cvta: {
      const std::uint64_t base = window_base(in.space), v = get(r, in.op[1], bits);
      set(r, in.op[0], (in.flag ? v - base : v + base) & in.mask, bits);
      return;
    }
    case opcode::isspacep: {
      const std::uint64_t v = get(r, in.op[1], 64);
      const bool shared = v >= k_generic_shared && v < k_generic_shared + k_window;
      const bool param = v >= k_generic_param && v < k_generic_param + k_window;
      const bool constant = v >= k_generic_const && v < k_generic_const + k_window;
      const bool local = v >= k_generic_local && v < k_generic_local + k_window;
      set(r, in.op[0],
          in.space == state_space::shared     ? shared
          : in.space == state_space::param    ? param
          : in.space == state_space::constant ? constant
          : in.space == state_space::local    ? local
                                              : !shared && !param && !constant && !local,
          1);
      return;
    }
    case opcode::ld:
    case opcode::st:
    case opcode::atom:
    case opcode::red: memory(t, r, in, pc); return;
    case opcode::cp_async: copy_async(t, r, in, pc); return;
    case opcode::mbarrier: barrier_op(t, r, in, pc); return;
    case opcode::tma_load:
    case opcode::tma_store: tensor_copy(t, r, in, pc); return;
    default: floating(r, in); return;
    }
  }

  static std::uint64_t mul_hi(std::uint64_t a, std::uint64_t b, int bits, bool is_signed) {
    if (bits == 64) {
      const std::uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
      const std::uint64_t mid = a1 * b0 + ((a0 * b0) >> 32), mid2 = a0 * b1 + (mid & 0xffffffffu);
      std::uint64_t hi = a1 * b1 + (mid >> 32) + (mid2 >> 32);
      if (is_signed) hi -= (static_cast<std::int64_t>(a) < 0 ? b : 0) + (static_cast<std::int64_t>(b) < 0 ? a : 0);
      return hi;
    }
    return is_signed ? static_cast<std::uint64_t>(static_cast<std::int64_t>(a * b) >> bits) : (a * b) >> bits;
  }

  std::uint64_t divide(const decoded_instruction& in, std::uint32_t pc, std::uint64_t a, std::uint64_t b) const {
    const bool div = in.code == opcode::div;
    if ((b & in.mask) == 0) fail(pc, "division by zero");
    if (in.type.cls != type_class::sint) return div ? a / b : a % b;
    const auto sa = static_cast<std::int64_t>(a), sb = static_cast<std::int64_t>(b);
    if (sb == -1) return div ? 0 - a : 0; // also the most negative value over -1, which wraps
    return static_cast<std::uint64_t>(div ? sa / sb : sa % sb);
  }

  void setp(std::uint64_t* r, const decoded_instruction& in) {
    const std::uint64_t a = src(r, in, in.op[2]), b = src(r, in, in.op[3]);
    bool p = false;
    const type_class cls = in.type.cls;
    if (cls == type_class::flt || cls == type_class::f16 || cls == type_class::bf16) {
      const double x = to_double(a, in.type), y = to_double(b, in.type);
      const bool nan = std::isnan(x) || std::isnan(y);
      const int m = in.mode >= 10 && in.mode < 16 ? in.mode - 10 : in.mode;
      switch (m) {
      case 0: p = x == y; break;
      case 1: p = x != y && !nan; break;
      case 2: p = x < y; break;
      case 3: p = x <= y; break;
      case 4: p = x > y; break;
      case 5: p = x >= y; break;
      case 16: p = !nan; break;
      default: p = nan; break;
      }
      if (in.mode >= 10 && in.mode < 16) p = p || nan;
    } else {
      const bool s = cls == type_class::sint;
      const auto sa = static_cast<std::int64_t>(a), sb = static_cast<std::int64_t>(b);
      switch (in.mode) {
      case 0: p = a == b; break;
      case 1: p = a != b; break;
      case 2: p = s ? sa < sb : a < b; break;
      case 3: p = s ? sa <= sb : a <= b; break;
      case 4: p = s ? sa > sb : a > b; break;
      case 5: p = s ? sa >= sb : a >= b; break;
      case 6: p = a < b; break;
      case 7: p = a <= b; break;
      case 8: p = a > b; break;
      default: p = a >= b; break;
      }
    }
    bool q = !p;
    if (in.mode2 != 0) {
      const bool c = (get(r, in.op[4], 1) & 1) != 0;
      if (in.mode2 == 1)
        p = p && c, q = q && c;
      else if (in.mode2 == 2)
        p = p || c, q = q || c;
      else
        p = p != c, q = q != c;
    }
    set(r, in.op[0], p ? 1 : 0, 1);
    if (in.flag) set(r, in.op[1], q ? 1 : 0, 1);
  }

  void floating(std::uint64_t* r, const decoded_instruction& in) {
    const value_type ty = in.type;
    if (in.count == 2) { // f16x2 / bf16x2: each half as its scalar type, computed in f32, rounded once
      std::uint64_t out = 0;
      for (int half = 0; half < 2; ++half) {
        auto f = [&](int i) {
          const std::uint64_t v = get(r, in.op[static_cast<std::size_t>(i)], 32) >> (16 * half) & 0xffffu;
          return static_cast<float>(to_double(v, ty));
        };
        out |= from_double(saturate(in, float_op(in.code, f)), ty, 1) << (16 * half);
      }
      set(r, in.op[0], out, 32);
      return;
    }
    const int bits = ty.bits;
    auto arg = [&](int i) { return get(r, in.op[static_cast<std::size_t>(i)], bits) & in.mask; };
    std::uint64_t out = 0;
    if (ty.cls == type_class::flt && bits == 32) {
      auto f = [&](int i) { return std::bit_cast<float>(static_cast<std::uint32_t>(arg(i))); };
      out = std::bit_cast<std::uint32_t>(saturate(in, float_op(in.code, f)));
    } else if (ty.cls == type_class::flt) {
      auto f = [&](int i) { return std::bit_cast<double>(arg(i)); };
      out = std::bit_cast<std::uint64_t>(saturate(in, float_op(in.code, f)));
    } else { // f16 and bf16: computed in f32 and rounded once
      auto f = [&](int i) { return static_cast<float>(to_double(arg(i), ty)); };
      out = from_double(saturate(in, float_op(in.code, f)), ty, 1);
    }
    set(r, in.op[0], out, bits);
  }

  template <class F> static auto float_op(opcode code, F f) -> decltype(f(1)) {
    using T = decltype(f(1));
    const T a = f(1);
    switch (code) {
    case opcode::fadd: return a + f(2);
    case opcode::fsub: return a - f(2);
    case opcode::fmul: return a * f(2);
    case opcode::fdiv: return a / f(2);
    case opcode::fma: return std::fma(a, f(2), f(3));
    case opcode::fmin: return std::fmin(a, f(2));
    case opcode::fmax: return std::fmax(a, f(2));
    case opcode::fneg: return -a;
    case opcode::fabs: return std::fabs(a);
    case opcode::frcp: return T(1) / a;
    case opcode::fsqrt: return std::sqrt(a);
    case opcode::frsqrt: return T(1) / std::sqrt(a);
    case opcode::fex2: return std::exp2(a);
    case opcode::flg2: return std::log2(a);
    case opcode::fsin: return std::sin(a);
    default: return std::cos(a);
    }
  }
  template <class T> static T saturate(const decoded_instruction& in, T v) {
    if (!in.flag) return v;
    return std::isnan(v) ? T(0) : std::clamp(v, T(0), T(1));
  }

  std::uint64_t convert(const decoded_instruction& in, std::uint64_t v) const {
    const value_type dst = in.type, from = in.type2;
    if (dst.cls == type_class::tf32) { // an f32 to tf32: 10 mantissa bits kept, the low 13 zero
      auto bits = static_cast<std::uint32_t>(v);
      if (std::isnan(std::bit_cast<float>(bits))) return 0x7fffffffu;
      if (in.mode2 == 2 && (bits >> 31) != 0) return 0; // .relu
      const std::uint32_t magnitude = bits & 0x7fffffffu, sign = bits & 0x80000000u;
      std::uint32_t rounded = magnitude;
      if (magnitude < 0x7f800000u) {                                             // finite: infinity stays
        if (in.mode == 9) rounded = magnitude + 0x1000u;                         // rna: ties away from zero
        if (in.mode == 1) rounded = magnitude + 0xfffu + (magnitude >> 13 & 1u); // rn: ties to even
        if (in.mode2 == 1 && rounded >= 0x7f800000u) rounded = 0x7f7fe000u;      // .satfinite: the largest tf32
      }
      return sign | (rounded & ~0x1fffu);
    }
    const bool dst_float = dst.cls == type_class::flt || dst.cls == type_class::f16 || dst.cls == type_class::bf16;
    const bool src_float = from.cls == type_class::flt || from.cls == type_class::f16 || from.cls == type_class::bf16;
    const int mode = in.mode; // 0 none, 1 rn, 2 rz, 3 rm, 4 rp, 5 rni, 6 rzi, 7 rmi, 8 rpi
    if (!dst_float && !src_float) {
      const bool s = from.cls == type_class::sint;
      const std::int64_t sv = s ? sext(v, from.bits) : 0;
      if (in.mode2 != 0) { // .sat: clamp to the destination's range
        const bool ds = dst.cls == type_class::sint;
        const std::int64_t lo = ds ? -(std::int64_t{1} << (dst.bits - 1)) : 0;
        const std::uint64_t hi = ds ? (1ull << (dst.bits - 1)) - 1 : mask_of(dst.bits);
        if (s && sv < lo) return static_cast<std::uint64_t>(lo);
        if (s ? (sv >= 0 && static_cast<std::uint64_t>(sv) > hi) : v > hi) return hi;
      }
      const std::uint64_t wide = s ? static_cast<std::uint64_t>(sv) : v;
      return dst.cls == type_class::sint ? static_cast<std::uint64_t>(sext(wide, dst.bits)) : wide & mask_of(dst.bits);
    }
    if (src_float && !dst_float) return float_to_integer(to_double(v, from), dst, mode);
    const int rounding = mode >= 5 ? mode - 4 : mode == 0 ? 1 : mode;
    if (src_float) {
      double d = to_double(v, from);
      if (mode >= 5) d = round_integer(d, mode - 4);
      return from_double(in.mode2 != 0 ? (std::isnan(d) ? 0.0 : std::clamp(d, 0.0, 1.0)) : d, dst, rounding);
    }
    // integer to float: 64-bit integers can need rounding to f64 too
    const int old = std::fegetround();
    std::fesetround(rounding == 2   ? FE_TOWARDZERO
                    : rounding == 3 ? FE_DOWNWARD
                    : rounding == 4 ? FE_UPWARD
                                    : FE_TONEAREST);
    std::uint64_t out = 0;
    if (dst.cls == type_class::flt && dst.bits == 64)
      out = std::bit_cast<std::uint64_t>(from.cls == type_class::sint ? static_cast<double>(sext(v, from.bits))
                                                                      : static_cast<double>(v));
    else {
      const float f = from.cls == type_class::sint ? static_cast<float>(sext(v, from.bits)) : static_cast<float>(v);
      out = dst.cls == type_class::flt ? std::bit_cast<std::uint32_t>(f) : from_double(f, dst, rounding);
    }
    std::fesetround(old);
    return out;
  }

  // --- memory -------------------------------------------------------------------------------

  static std::uint64_t window_base(state_space s) {
    return s == state_space::shared     ? k_generic_shared
           : s == state_space::param    ? k_generic_param
           : s == state_space::constant ? k_generic_const
           : s == state_space::local    ? k_generic_local
                                        : 0;
  }

  /// The bytes behind an access of `bytes` at `address` in `space` (generic resolved first); for
  /// shared memory also its offset in the window.
  std::uint8_t* locate(std::uint32_t t, std::uint32_t pc, state_space& space, std::uint64_t& address, int bytes,
                       bool write) {
    if (space == state_space::generic) {
      if (address - k_generic_shared < k_window) {
        space = state_space::shared;
        address -= k_generic_shared;
      } else if (address - k_generic_param < k_window) {
        space = state_space::param;
        address -= k_generic_param;
      } else if (address - k_generic_const < k_window) {
        space = state_space::constant;
        address -= k_generic_const;
      } else if (address - k_generic_local < k_window) {
        space = state_space::local;
        address -= k_generic_local;
      } else {
        space = state_space::global;
      }
    }
    const auto total = static_cast<std::uint64_t>(bytes);
    if (space == state_space::shared) {
      address &= 0xffffffffull;
      if (address + total > m_shared.size())
        fail(pc, "shared address " + std::to_string(address) + " + " + std::to_string(total) + " B is outside the " +
                     std::to_string(m_shared.size()) + " B of shared memory");
      if (address % total != 0)
        fail(pc, "shared address " + std::to_string(address) + " is not a multiple of " + std::to_string(total));
      return m_shared.data() + address;
    }
    if (space == state_space::param) {
      if (write) fail(pc, "a store to the parameters");
      if (address + total > m_l.params.size()) fail(pc, "a load past the parameters");
      return const_cast<std::uint8_t*>(m_l.params.data()) + address; // read only
    }
    if (space == state_space::local) {
      if (address + total > m_p.local_bytes)
        fail(pc, "local address " + std::to_string(address) + " + " + std::to_string(total) + " B is outside the " +
                     std::to_string(m_p.local_bytes) + " B of .local arrays");
      return m_local.data() + std::size_t{t} * m_p.local_bytes + address;
    }
    if (space == state_space::constant) {
      if (write) fail(pc, "a store to constant memory");
      if (address + total > m_p.constant.size())
        fail(pc, "constant address " + std::to_string(address) + " + " + std::to_string(total) +
                     " B is outside the module's " + std::to_string(m_p.constant.size()) + " B of .const data");
      return const_cast<std::uint8_t*>(m_p.constant.data()) + address; // read only
    }
    std::uint8_t* at = write ? m_global.find_for_write(address, bytes) : m_global.find(address, bytes);
    if (at == nullptr)
      fail(pc,
           "global address 0x" + hex(address) + " (" + std::to_string(total) + " B) is in no buffer given to the run");
    return at;
  }

  void event(std::uint32_t t, const decoded_instruction& in, std::uint32_t pc, std::uint64_t address, int width,
             model::access_kind kind, std::uint8_t part = 0) {
    // Written in place: an event built on the stack and copied was read back in wider pieces than
    // it was written, a store-forwarding stall on every shared access.
    shared_event& ev = m_result.events.emplace_back();
    ev.warp = t / model::k_warp_lanes;
    ev.lane = t % model::k_warp_lanes;
    ev.instruction = pc;
    ev.execution = arrival(t, in);
    ev.address = static_cast<std::uint32_t>(address);
    ev.width = width;
    ev.kind = kind;
    ev.part = part;
  }

  /// `bytes` (1, 2, 4 or 8; else up to 8) little-endian bytes at `p`, zero-extended: one load of
  /// the width, where a memcpy of a variable size into a 64-bit value stalls on reading it back.
  static std::uint64_t load_bytes(const std::uint8_t* p, int bytes) {
    switch (bytes) {
    case 1: return *p;
    case 2: return load_as<std::uint16_t>(p);
    case 4: return load_as<std::uint32_t>(p);
    case 8: return load_as<std::uint64_t>(p);
    default: {
      std::uint64_t v = 0;
      std::memcpy(&v, p, static_cast<std::size_t>(std::min(bytes, 8)));
      return v;
    }
    }
  }
  template <class T> static std::uint64_t load_as(const std::uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }

  void memory(std::uint32_t t, std::uint64_t* r, const decoded_instruction& in, std::uint32_t pc) {
    const int bits = in.type.bits, bytes = bits / 8, total = bytes * in.count;
    const bool atomic = in.code == opcode::atom || in.code == opcode::red;
    std::uint64_t address = address_of(r, in.op[1]);
    state_space space = in.space;
    std::uint8_t* at = locate(t, pc, space, address, total, in.code != opcode::ld);
    if (space == state_space::shared)
      event(t, in, pc, address, total,
            in.code == opcode::ld   ? model::access_kind::load
            : in.code == opcode::st ? model::access_kind::store
                                    : model::access_kind::atom);
    else if (atomic && space == state_space::global)
      ++m_result.global_atomics;
    auto load = [&](int i) {
      const std::uint64_t v = load_bytes(at + i * bytes, bytes);
      return in.type.cls == type_class::sint ? static_cast<std::uint64_t>(sext(v, bits)) : v;
    };
    auto store = [&](int i, std::uint64_t v) { std::memcpy(at + i * bytes, &v, static_cast<std::size_t>(bytes)); };
    if (in.code == opcode::ld) {
      if (in.count == 1)
        set(r, in.op[0], load(0), 64);
      else
        for (std::uint32_t i = 0; i < in.count; ++i)
          set(r, m_p.elements[in.op[0].index + i], load(static_cast<int>(i)), 64);
      return;
    }
    if (in.code == opcode::st) {
      if (in.count == 1)
        store(0, get(r, in.op[2], bits));
      else
        for (std::uint32_t i = 0; i < in.count; ++i)
          store(static_cast<int>(i), get(r, m_p.elements[in.op[2].index + i], bits));
      return;
    }
    const std::uint64_t raw = load(0), old = raw & in.mask, b = src(r, in, in.op[2]) & in.mask;
    std::uint64_t d = 0;
    switch (in.mode) { // add, and, or, xor, exch, cas, min, max, inc, dec
    case 0:
      d = in.type.cls == type_class::flt ? from_double(to_double(old, in.type) + to_double(b, in.type), in.type, 1)
                                         : old + b;
      break;
    case 1: d = old & b; break;
    case 2: d = old | b; break;
    case 3: d = old ^ b; break;
    case 4: d = b; break;
    case 5: d = old == b ? src(r, in, in.op[3]) : old; break;
    case 8: d = old >= b ? 0 : old + 1; break;
    case 9: d = old == 0 || old > b ? b : old - 1; break;
    default: {
      const bool less = in.type.cls == type_class::sint ? sext(old, bits) < sext(b, bits) : old < b;
      d = (in.mode == 6) == less ? old : b;
    }
    }
    store(0, d);
    if (in.code == opcode::atom) set(r, in.op[0], raw, 64);
  }

  void copy_async(std::uint32_t t, std::uint64_t* r, const decoded_instruction& in, std::uint32_t pc) {
    const int size = in.count;
    std::uint64_t dst = address_of(r, in.op[0]), from = address_of(r, in.op[1]);
    state_space shared = state_space::shared, global = state_space::global;
    std::uint8_t* to = locate(t, pc, shared, dst, size, true);
    const auto keep = static_cast<int>(
        std::min<std::uint64_t>(get(r, in.op[2], 32) & 0xffffffffu, static_cast<std::uint64_t>(size)));
    std::memset(to, 0, static_cast<std::size_t>(size));
    if (keep > 0) std::memcpy(to, locate(t, pc, global, from, keep, false), static_cast<std::size_t>(keep));
    event(t, in, pc, dst, size, model::access_kind::ldgsts);
    m_result.events.back().global_address = from;
    m_result.events.back().l1_bypass = in.flag;
  }

  // --- mbarrier and TMA ---------------------------------------------------------------------

  /// An mbarrier's state, kept beside the shared window by the barrier's address: arrivals still
  /// expected in this phase, the count each phase starts with, transaction bytes still expected,
  /// and the phase (its parity is what try_wait.parity asks about).
  struct mbarrier_state {
    std::int64_t pending = 0, expected = 0, tx = 0;
    std::uint64_t phase = 0;
  };

  /// The shared address of the mbarrier that operand `barrier` of `in` names, checked.
  std::uint64_t barrier_address(std::uint32_t t, const std::uint64_t* r, const decoded_instruction& in,
                                const decoded_operand& barrier, std::uint32_t pc) {
    std::uint64_t address = address_of(r, barrier);
    state_space space = in.space;
    (void)locate(t, pc, space, address, 8, false);
    if (space != state_space::shared) fail(pc, "the mbarrier is not in shared memory");
    if (address % 8 != 0)
      fail(pc, "the mbarrier at shared address " + std::to_string(address) + " is not 8-byte aligned");
    return address;
  }

  mbarrier_state& barrier_at(std::uint32_t pc, std::uint64_t address) {
    const auto it = m_barriers.find(address);
    if (it == m_barriers.end())
      fail(pc, "the mbarrier at shared address " + std::to_string(address) + " is used before mbarrier.init");
    return it->second;
  }

  void complete_if_done(mbarrier_state& b) {
    if (b.pending > 0 || b.tx != 0) return;
    ++b.phase;
    b.pending = b.expected;
  }

  /// Whether a wait (try_wait / test_wait) at `in` would find its phase complete; true for any
  /// other instruction.
  bool wait_done(std::uint32_t t, const decoded_instruction& in) {
    const auto op = static_cast<mbarrier_op>(in.mode);
    if (in.code != opcode::mbarrier || (op != mbarrier_op::wait_parity && op != mbarrier_op::wait_state)) return true;
    const std::uint32_t pc = static_cast<std::uint32_t>(&in - m_p.code.data());
    const std::uint64_t* r = regs(t);
    const mbarrier_state& b = barrier_at(pc, barrier_address(t, r, in, in.op[1], pc));
    const std::uint64_t asked = get(r, in.op[2], 64);
    // .parity: the phase of that parity has completed when the current phase's parity differs;
    // a state token (the phase an arrive returned): when the barrier has moved past it.
    return op == mbarrier_op::wait_parity ? (b.phase & 1) != (asked & 1) : b.phase != asked;
  }

  void barrier_op(std::uint32_t t, std::uint64_t* r, const decoded_instruction& in, std::uint32_t pc) {
    const std::uint64_t address = barrier_address(t, r, in, in.op[1], pc);
    const auto op = static_cast<mbarrier_op>(in.mode);
    if (op == mbarrier_op::init) {
      const auto count = static_cast<std::int64_t>(get(r, in.op[2], 32) & 0xffffffffu);
      if (count < 1 || count > (1 << 20) - 1) fail(pc, "mbarrier.init with a count of " + std::to_string(count));
      m_barriers[address] = {count, count, 0, 0};
      return;
    }
    if (op == mbarrier_op::inval) {
      m_barriers.erase(address);
      return;
    }
    mbarrier_state& b = barrier_at(pc, address);
    switch (op) {
    case mbarrier_op::wait_parity:
    case mbarrier_op::wait_state: set(r, in.op[0], 1, 1); return; // wait_done said complete
    case mbarrier_op::expect_tx: b.tx += static_cast<std::int64_t>(get(r, in.op[2], 32) & 0xffffffffu); return;
    default: break;
    }
    // arrive{.expect_tx}: the token is the phase it arrived in.
    if (in.op[0].type != operand_type::sink && in.op[0].type != operand_type::none) set(r, in.op[0], b.phase, 64);
    std::int64_t arrivals = 1;
    if (op == mbarrier_op::arrive_expect_tx)
      b.tx += static_cast<std::int64_t>(get(r, in.op[2], 32) & 0xffffffffu);
    else
      arrivals = static_cast<std::int64_t>(get(r, in.op[2], 32) & 0xffffffffu);
    if (arrivals > b.pending)
      fail(pc, "mbarrier.arrive of " + std::to_string(arrivals) + " where " + std::to_string(b.pending) +
                   " arrivals are pending in the phase");
    b.pending -= arrivals;
    complete_if_done(b);
  }

  /// cp.async.bulk.tensor (tiled), all at once. A load: the box at the coordinates, elements outside
  /// the tensor zero, laid out densely (dimension 0 innermost) at the shared destination, each
  /// byte's shared address swizzled as the map says (the XOR of address bits [4, 4 + b) with
  /// [7, 7 + b)); its bytes complete that many transaction bytes of the mbarrier. A store: the
  /// same layout read back and written to the tensor, elements outside it dropped. TMA's shared
  /// accesses make no warp request: the hardware counts no shared wavefront for them.
  void tensor_copy(std::uint32_t t, std::uint64_t* r, const decoded_instruction& in, std::uint32_t pc) {
    const bool load = in.code == opcode::tma_load;
    std::uint64_t map_at = address_of(r, in.op[1]);
    state_space map_space = state_space::generic;
    const std::uint8_t* bytes = locate(t, pc, map_space, map_at, static_cast<int>(tensor_map::k_bytes), false);
    const std::optional<tensor_map> map = tensor_map::decode(bytes);
    if (!map)
      fail(pc, "the tensor map of '" + m_p.opcodes[pc] +
                   "' is not one bankbench made (give the kernel's CUtensorMap parameter as a tensor_map argument)");
    if (map->rank != in.count)
      fail(pc, m_p.opcodes[pc] + " copies a " + std::to_string(in.count) + "-d box with a " +
                   std::to_string(map->rank) + "-d tensor map");
    const std::uint32_t e = map->element_bytes;
    const std::uint32_t span = 16u << map->swizzle_bits;
    if (map->swizzle_bits != 0 && map->box[0] * e != span)
      fail(pc, "a swizzled box whose rows (" + std::to_string(map->box[0] * e) + " bytes) are not the " +
                   std::to_string(span) + "-byte span is not followed");
    std::array<std::int64_t, tensor_map::k_max_rank> at{};
    for (std::uint32_t k = 0; k < map->rank; ++k)
      at[k] = static_cast<std::int32_t>(get(r, m_p.elements[in.op[3].index + k], 32) & 0xffffffffu);
    const std::uint64_t box_at = address_of(r, in.op[0]);
    std::uint64_t elements = 1;
    for (std::uint32_t k = 0; k < map->rank; ++k) elements *= map->box[k];
    std::array<std::uint64_t, tensor_map::k_max_rank> index{};
    for (std::uint64_t i = 0; i < elements; ++i) {
      bool inside = true;
      std::uint64_t global_at = map->global;
      for (std::uint32_t k = 0; k < map->rank; ++k) {
        const std::int64_t g = at[k] + static_cast<std::int64_t>(index[k]);
        inside = inside && g >= 0 && static_cast<std::uint64_t>(g) < map->dims[k];
        global_at += static_cast<std::uint64_t>(g) * (k == 0 ? e : map->strides[k]);
      }
      std::uint64_t shared_at = box_at + i * e;
      if (map->swizzle_bits != 0) shared_at ^= (shared_at >> 7 & ((1u << map->swizzle_bits) - 1u)) << 4;
      state_space shared = state_space::shared, global = state_space::global;
      std::uint8_t* box = locate(t, pc, shared, shared_at, static_cast<int>(e), load);
      if (load && inside)
        std::memcpy(box, locate(t, pc, global, global_at, static_cast<int>(e), false), e);
      else if (load)
        std::memset(box, 0, e);
      else if (inside)
        std::memcpy(locate(t, pc, global, global_at, static_cast<int>(e), true), box, e);
      for (std::uint32_t k = 0; k < map->rank && ++index[k] == map->box[k]; ++k) index[k] = 0;
    }
    if (!load) return;
    mbarrier_state& b = barrier_at(pc, barrier_address(t, r, in, in.op[2], pc));
    b.tx -= static_cast<std::int64_t>(elements * e);
    complete_if_done(b);
  }

  // --- warp-wide instructions ---------------------------------------------------------------

  /// Runs one warp-wide instruction that lanes of warp `w` wait at, if the lanes it names are all
  /// there; false when none can run.
  bool resolve(std::uint32_t w) {
    const std::uint32_t first = w * model::k_warp_lanes, end = std::min(m_n, first + model::k_warp_lanes);
    std::uint32_t waiting = 0, live = 0;
    for (std::uint32_t t = first; t < end; ++t) {
      const std::uint32_t bit = 1u << (t - first);
      if (m_threads[t].state != thread_state::exited) live |= bit;
      if (m_threads[t].state == thread_state::at_warp) waiting |= bit;
    }
    std::uint32_t tried = 0;
    for (std::uint32_t lane = 0; lane < end - first; ++lane) {
      if ((waiting >> lane & 1) == 0 || (tried >> lane & 1) != 0) continue;
      const std::uint32_t pc = m_threads[first + lane].pc;
      std::uint32_t group = 0;
      for (std::uint32_t l = lane; l < end - first; ++l)
        if ((waiting >> l & 1) != 0 && m_threads[first + l].pc == pc) group |= 1u << l;
      tried |= group;
      const decoded_instruction& in = m_p.code[pc];
      if (in.code == opcode::wgmma) {
        if (!warpgroup_at(w, pc)) continue;
        const std::uint32_t g0 = w / 4 * 128;
        warpgroup_mma(in, pc, g0);
        for (std::uint32_t t = g0; t < g0 + 128; ++t) {
          m_threads[t].pc = pc + 1;
          m_threads[t].state = thread_state::running;
        }
        return true;
      }
      std::uint32_t required = group;
      if (in.code == opcode::ldmatrix || in.code == opcode::stmatrix || in.code == opcode::mma) {
        required = live;
      } else if (in.code != opcode::activemask) {
        const std::size_t member = in.code == opcode::shfl        ? 5
                                   : in.code == opcode::match     ? 3
                                   : in.code == opcode::warp_sync ? 0
                                                                  : 2; // vote, redux, elect
        for (std::uint32_t l = 0; l < 32; ++l)
          if ((group >> l & 1) != 0) required |= static_cast<std::uint32_t>(get(regs(first + l), in.op[member], 32));
        required &= live;
      }
      if ((required & ~group) != 0) continue;
      warp_wide(in, pc, first, group);
      for (std::uint32_t l = 0; l < 32; ++l)
        if ((group >> l & 1) != 0) {
          m_threads[first + l].pc = pc + 1;
          m_threads[first + l].state = thread_state::running;
        }
      return true;
    }
    return false;
  }

  void warp_wide(const decoded_instruction& in, std::uint32_t pc, std::uint32_t first, std::uint32_t group) {
    if (in.code == opcode::unsupported) fail(pc, m_p.errors[pc]);
    std::array<std::uint64_t, 32> a{};
    auto lanes = [&](auto f) {
      for (std::uint32_t l = 0; l < 32; ++l)
        if ((group >> l & 1) != 0) f(l, regs(first + l));
    };
    switch (in.code) {
    case opcode::shfl: {
      lanes([&](std::uint32_t l, std::uint64_t* r) { a[l] = get(r, in.op[2], 32) & 0xffffffffu; });
      std::array<std::uint64_t, 32> out{};
      std::array<bool, 32> valid{};
      lanes([&](std::uint32_t l, std::uint64_t* r) {
        const auto b = static_cast<std::int64_t>(get(r, in.op[3], 32) & 0x1f);
        const std::uint64_t c = get(r, in.op[4], 32);
        const auto clamp = static_cast<std::int64_t>(c & 0x1f), segment = static_cast<std::int64_t>(c >> 8 & 0x1f);
        const auto lane = static_cast<std::int64_t>(l);
        const std::int64_t max_lane = (lane & segment) | (clamp & ~segment), min_lane = lane & segment;
        std::int64_t j = 0;
        bool p = false;
        switch (in.mode) {
        case 0: j = lane - b, p = j >= max_lane; break;
        case 1: j = lane + b, p = j <= max_lane; break;
        case 2: j = lane ^ b, p = j <= max_lane; break;
        default: j = min_lane | (b & ~segment), p = j <= max_lane; break;
        }
        if (!p) j = lane;
        out[l] = (group >> j & 1) != 0 ? a[static_cast<std::size_t>(j)] : a[l];
        valid[l] = p;
      });
      lanes([&](std::uint32_t l, std::uint64_t* r) {
        set(r, in.op[0], out[l], 32);
        if (in.flag) set(r, in.op[1], valid[l] ? 1 : 0, 1);
      });
      return;
    }
    case opcode::vote: {
      std::uint32_t ballot = 0;
      lanes([&](std::uint32_t l, std::uint64_t* r) {
        ballot |= static_cast<std::uint32_t>((get(r, in.op[1], 1) & 1) ^ in.mode2) << l;
      });
      const std::uint64_t v = in.mode == 0   ? ballot == group
                              : in.mode == 1 ? ballot != 0
                              : in.mode == 2 ? ballot == 0 || ballot == group
                                             : ballot;
      lanes([&](std::uint32_t, std::uint64_t* r) { set(r, in.op[0], v, in.mode == 3 ? 32 : 1); });
      return;
    }
    case opcode::match: {
      lanes([&](std::uint32_t l, std::uint64_t* r) { a[l] = get(r, in.op[2], in.type.bits) & in.mask; });
      std::uint32_t all_same = group;
      lanes([&](std::uint32_t l, std::uint64_t*) {
        if (a[l] != a[static_cast<std::size_t>(std::countr_zero(group))]) all_same = 0;
      });
      lanes([&](std::uint32_t l, std::uint64_t* r) {
        std::uint32_t same = 0;
        for (std::uint32_t k = 0; k < 32; ++k)
          if ((group >> k & 1) != 0 && a[k] == a[l]) same |= 1u << k;
        set(r, in.op[0], in.mode == 1 ? all_same : same, 32);
        if (in.flag) set(r, in.op[1], all_same != 0 ? 1 : 0, 1);
      });
      return;
    }
    case opcode::activemask: lanes([&](std::uint32_t, std::uint64_t* r) { set(r, in.op[0], group, 32); }); return;
    case opcode::redux: {
      const bool s = in.type.cls == type_class::sint;
      std::uint64_t acc = 0;
      bool seen = false;
      lanes([&](std::uint32_t, std::uint64_t* r) {
        const std::uint64_t v = src(r, in, in.op[1]);
        if (!seen) {
          acc = v;
          seen = true;
          return;
        }
        const bool less = s ? static_cast<std::int64_t>(v) < static_cast<std::int64_t>(acc) : v < acc;
        switch (in.mode) {
        case 0: acc += v; break;
        case 1: acc = less ? v : acc; break;
        case 2: acc = less || v == acc ? acc : v; break;
        case 3: acc &= v; break;
        case 4: acc |= v; break;
        default: acc ^= v; break;
        }
      });
      lanes([&](std::uint32_t, std::uint64_t* r) { set(r, in.op[0], acc & in.mask, 32); });
      return;
    }
    case opcode::ldmatrix:
    case opcode::stmatrix: matrix(in, pc, first, group); return;
    case opcode::mma: warp_mma(in, pc, first, group); return;
    case opcode::elect: {
      // The lowest lane of the member mask among those here (all of them: resolve waited for them).
      std::uint32_t members = 0;
      lanes([&](std::uint32_t, std::uint64_t* r) { members |= static_cast<std::uint32_t>(get(r, in.op[2], 32)); });
      const std::uint32_t leader = static_cast<std::uint32_t>(std::countr_zero(members & group));
      lanes([&](std::uint32_t l, std::uint64_t* r) {
        set(r, in.op[0], leader, 32);
        set(r, in.op[1], l == leader ? 1 : 0, 1);
      });
      return;
    }
    default: return; // bar.warp.sync
    }
  }

  // --- wgmma ---------------------------------------------------------------------------------

  /// Whether all 128 threads of warp w's warpgroup wait at `pc` (a warpgroup is 4 warps from a
  /// multiple of 4; .aligned: every thread of it runs the instruction).
  bool warpgroup_at(std::uint32_t w, std::uint32_t pc) const {
    const std::uint32_t g0 = w / 4 * 128;
    if (g0 + 128 > m_n)
      fail(pc,
           m_p.opcodes[pc] + " needs the four warps of a warpgroup; the block has " + std::to_string(m_n) + " threads");
    for (std::uint32_t t = g0; t < g0 + 128; ++t) {
      if (m_threads[t].state == thread_state::exited)
        fail(pc, m_p.opcodes[pc] + ": thread " + std::to_string(t) + " of the warpgroup has exited");
      if (m_threads[t].state != thread_state::at_warp || m_threads[t].pc != pc) return false;
    }
    return true;
  }

  /// A wgmma matrix descriptor (PTX ISA, "Matrix Descriptor Format"): start address, leading and
  /// stride byte offsets, and the swizzle (XOR of address bits [4, 4 + bits) with [7, 7 + bits)).
  struct matrix_descriptor {
    std::uint32_t start = 0, leading = 0, stride = 0, span = 16;
    int swizzle_bits = 0;  ///< 0 interleave, 1 32B, 2 64B, 3 128B
    bool mn_major = false; ///< imm-trans 1: elements along M (N) contiguous, 16-bit types alone
  };
  matrix_descriptor descriptor_of(std::uint32_t pc, std::uint64_t d, const char* which) const {
    matrix_descriptor m;
    m.start = static_cast<std::uint32_t>(d & 0x3fff) << 4;
    m.leading = static_cast<std::uint32_t>(d >> 16 & 0x3fff) << 4;
    m.stride = static_cast<std::uint32_t>(d >> 32 & 0x3fff) << 4;
    static constexpr int k_bits[4] = {0, 3, 2, 1}; // layout field: interleave, 128B, 64B, 32B
    m.swizzle_bits = k_bits[d >> 62];
    m.span = m.swizzle_bits == 0 ? 16 : 16u << m.swizzle_bits;
    if ((d >> 49 & 7) != 0)
      fail(pc,
           std::string("the ") + which + " descriptor has a base offset (bits 49-51), which the model does not follow");
    return m;
  }
  /// The shared address of byte `byte` (0..31) of row `row` of a K-major operand: every wgmma form
  /// reads 32 bytes of each row (k16 of f16, k8 of tf32, k32 of e4m3), two 16-byte core-matrix rows.
  static std::uint32_t operand_address(const matrix_descriptor& m, std::uint32_t row, std::uint32_t byte) {
    if (m.swizzle_bits == 0) return m.start + row / 8 * m.stride + byte / 16 * m.leading + row % 8 * 16 + byte % 16;
    return swizzled(m, m.start + row / 8 * m.stride + row % 8 * m.span + byte);
  }
  /// The shared address of element (mn, k) of an MN-major operand of 2-byte elements (PTX ISA and
  /// CuTe's canonical MN-major layouts): a core matrix is 8 k rows of 16 bytes, 8 elements along M
  /// (N). Interleaved, core matrices along M (N) are `stride` apart and along K `leading`; swizzled,
  /// a k row holds span / 2 elements along M (N), such blocks are `leading` apart and groups of 8 k
  /// rows `stride` apart.
  static std::uint32_t mn_address(const matrix_descriptor& m, std::uint32_t mn, std::uint32_t k) {
    if (m.swizzle_bits == 0) return m.start + mn / 8 * m.stride + k / 8 * m.leading + k % 8 * 16 + mn % 8 * 2;
    const std::uint32_t row = m.span / 2;
    return swizzled(m, m.start + mn / row * m.leading + k / 8 * m.stride + k % 8 * m.span + mn % row * 2);
  }
  /// An MMA operand element's value (mma.sync, wgmma): s8 and u8 as integers, the float types
  /// through to_double; exact in a double for every operand type.
  static double matrix_value(std::uint64_t v, value_type t) {
    if (t.cls == type_class::sint) return static_cast<double>(sext(v, 8));
    if (t.cls == type_class::bits) return static_cast<double>(v); // u8
    return to_double(v, t);
  }
  /// An s32 accumulator's sum as its register holds it: clamped with .satfinite, else wrapped.
  static std::uint64_t s32_result(std::int64_t acc, bool satfinite) {
    if (satfinite)
      acc = std::clamp<std::int64_t>(acc, std::numeric_limits<std::int32_t>::min(),
                                     std::numeric_limits<std::int32_t>::max());
    return static_cast<std::uint64_t>(acc) & 0xffffffffu;
  }

  /// The swizzle: address bits [4, 4 + b) XOR [7, 7 + b).
  static std::uint32_t swizzled(const matrix_descriptor& m, std::uint32_t pre) {
    return pre ^ ((pre >> 7 & ((1u << m.swizzle_bits) - 1u)) << 4);
  }
  /// The address of row r (0..7) of the core matrix at (mn0, chunk) of an operand: its 8 rows along
  /// M (N) from mn0 and 16 bytes of K chunk `chunk` (K-major); its 8 k rows from 8 chunk, 16 bytes
  /// along M (N) from mn0 (MN-major).
  static std::uint32_t core_row(const matrix_descriptor& m, std::uint32_t mn0, std::uint32_t chunk, std::uint32_t r) {
    return m.mn_major ? mn_address(m, mn0, 8 * chunk + r) : operand_address(m, mn0 + r, 16 * chunk);
  }

  /// wgmma.mma_async m64nNkK, B from its descriptor and A from its descriptor or, with `flag`, from
  /// each thread's four registers (an operand in shared memory K-major, or MN-major where mode's or
  /// mode2's bit 1 says so), for the warpgroup from thread g0: D = A B^T
  /// (+ D where scale-d is 1), products summed in k order in f32 (f16 accumulators rounded to f16
  /// once, at the end). Operand types: type2 (A) and type3 (B), K = 32 bytes of them. Each warp
  /// makes one GMMA request: its 16 rows of A (4 core matrices of 8 rows x 16 bytes, one per 8
  /// lanes, as ldmatrix.x4), continued by its quarter of B's rows (N / 16 core matrices): the shape
  /// of the wgmma family's access plan, which an H100 confirmed for N = 32 to 256. With A in
  /// registers the request is the quarter of B alone (H100, N = 64: 4 wavefronts,
  /// docs/measurements/2026-11-27-h100-wgmma-rs.md).
  void warpgroup_mma(const decoded_instruction& in, std::uint32_t pc, std::uint32_t g0) {
    const std::uint32_t n = 8u * in.count;
    if (n % 32 != 0 && in.flag)
      fail(pc, m_p.opcodes[pc] + ": with A in registers the model follows N that are multiples of 32 (a warp whose "
                                 "quarter of B is empty may still make a request; docs/bank-model.md)");
    const bool a_in_registers = in.flag;
    const std::uint64_t* r0 = regs(g0);
    const std::uint64_t da = a_in_registers ? 0 : get(r0, in.op[1], 64), db = get(r0, in.op[2], 64);
    const std::uint64_t scale = get(r0, in.op[3], 1) & 1;
    for (std::uint32_t t = g0 + 1; t < g0 + 128; ++t) {
      const std::uint64_t* r = regs(t);
      if ((!a_in_registers && get(r, in.op[1], 64) != da) || get(r, in.op[2], 64) != db ||
          (get(r, in.op[3], 1) & 1) != scale)
        fail(pc, m_p.opcodes[pc] + ": thread " + std::to_string(t) +
                     " gives other descriptors or scale-d than the warpgroup's first thread");
    }
    matrix_descriptor a = a_in_registers ? matrix_descriptor{} : descriptor_of(pc, da, "A");
    matrix_descriptor b = descriptor_of(pc, db, "B");
    a.mn_major = (in.mode & 2) != 0;
    b.mn_major = (in.mode2 & 2) != 0;
    const std::uint32_t bytes = in.type2.bits / 8u, ks = 32 / bytes; // per element; elements of a row
    const std::uint64_t element_mask = mask_of(in.type2.bits);
    const bool integer = in.type.cls == type_class::sint; // s32 += s8/u8 x s8/u8
    const auto element = [&](const matrix_descriptor& m, std::uint32_t row, std::uint32_t k, value_type type) {
      std::uint64_t address = m.mn_major ? mn_address(m, row, k) : operand_address(m, row, k * bytes);
      state_space space = state_space::shared;
      const std::uint8_t* p = locate(g0, pc, space, address, bytes, false);
      std::uint64_t v = 0;
      std::memcpy(&v, p, bytes); // little-endian, as the GPU
      return matrix_value(v, type);
    };
    // Every element is exact in a double (8 to 16 bits, tf32); each product is rounded to float
    // where the accumulators are floats, and exact for integers.
    std::vector<double> av(std::size_t{64} * ks), bv(std::size_t{n} * ks);
    const double a_sign = (in.mode & 1) != 0 ? -1.0 : 1.0;
    if (a_in_registers) {                  // A fragment (PTX ISA, wgmma A): warp w's rows 16w..16w+15, as mma.m16n8kK's
      const std::uint32_t per = 4 / bytes; // elements a register
      for (std::uint32_t t = g0; t < g0 + 128; ++t) {
        const std::uint64_t* r = regs(t);
        const std::uint32_t warp = (t - g0) / 32, lane = t % 32;
        for (std::uint32_t i = 0; i < 4; ++i) {
          const auto word = get(r, m_p.elements[in.op[1].index + i], 32);
          const std::uint32_t row = 16 * warp + lane / 4 + 8 * (i % 2), k = per * (lane % 4) + 4 * per * (i / 2);
          for (std::uint32_t h = 0; h < per; ++h)
            av[row * ks + k + h] = a_sign * matrix_value(word >> (in.type2.bits * h) & element_mask, in.type2);
        }
      }
    } else {
      for (std::uint32_t row = 0; row < 64; ++row)
        for (std::uint32_t k = 0; k < ks; ++k) av[row * ks + k] = a_sign * element(a, row, k, in.type2);
    }
    for (std::uint32_t row = 0; row < n; ++row)
      for (std::uint32_t k = 0; k < ks; ++k)
        bv[row * ks + k] = ((in.mode2 & 1) != 0 ? -1.0 : 1.0) * element(b, row, k, in.type3);
    const auto product = [&](std::uint32_t row, std::uint32_t col, auto acc) {
      for (std::uint32_t k = 0; k < ks; ++k) acc += static_cast<decltype(acc)>(av[row * ks + k] * bv[col * ks + k]);
      return acc;
    };
    for (std::uint32_t t = g0; t < g0 + 128; ++t) {
      std::uint64_t* r = regs(t);
      const std::uint32_t warp = (t - g0) / 32, lane = t % 32;
      if (in.type.bits == 32) {
        for (std::uint32_t i = 0; i < n / 2; ++i) { // accumulator fragment: PTX ISA, wgmma D for f32
          const std::uint32_t row = 16 * warp + lane / 4 + 8 * (i / 2 % 2), col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
          const decoded_operand& reg = m_p.elements[in.op[0].index + i];
          const std::uint64_t old = scale != 0 ? get(r, reg, 32) & 0xffffffffu : 0;
          if (integer) {
            set(r, reg, s32_result(product(row, col, static_cast<std::int64_t>(sext(old, 32))), (in.mode & 4) != 0),
                32);
          } else {
            const float acc = std::bit_cast<float>(static_cast<std::uint32_t>(old));
            set(r, reg, std::bit_cast<std::uint32_t>(product(row, col, acc)), 32);
          }
        }
      } else {
        for (std::uint32_t j = 0; j < n / 4; ++j) { // f16 accumulators: two halves a register, as mma's
          const std::uint32_t row = 16 * warp + lane / 4 + 8 * (j % 2), col = 8 * (j / 2) + 2 * (lane % 4);
          const decoded_operand& reg = m_p.elements[in.op[0].index + j];
          const std::uint64_t old = scale != 0 ? get(r, reg, 32) : 0;
          std::uint64_t pair = 0;
          for (std::uint32_t h = 0; h < 2; ++h) {
            const auto acc = static_cast<float>(to_double(old >> (16 * h) & 0xffffu, in.type));
            pair |= from_double(product(row, col + h, acc), in.type, 1) << (16 * h);
          }
          set(r, reg, pair, 32);
        }
      }
    }
    if (!a_in_registers)
      for (std::uint32_t warp = 0; warp < 4; ++warp)
        for (std::uint32_t lane = 0; lane < 32; ++lane) {
          const std::uint32_t t = g0 + 32 * warp + lane, j = lane / 8, row = lane % 8;
          event(t, in, pc, core_row(a, 16 * warp + 8 * (j / 2), j % 2, row), 16, model::access_kind::gmma);
        }
    // B's N / 8 row groups (2 core matrices each, one per K chunk), split among the warps in order:
    // warp w has groups [G w / 4, G (w + 1) / 4), its quarter of B's rows where N is a multiple of 32.
    // Where it is not, an H100 counted every core matrix once (16 + N / 4 wavefronts a wgmma in 4
    // requests, N = 8 to 176); how the hardware splits them among the warps is not measurable, so
    // this split is the model's.
    const std::uint32_t groups = n / 8;
    const std::uint32_t first_part = a_in_registers ? 0 : 1; // B's first 4 core matrices head the request
    for (std::uint32_t warp = 0; warp < 4; ++warp) {
      const std::uint32_t begin = groups * warp / 4, matrices = 2 * (groups * (warp + 1) / 4 - begin);
      for (std::uint32_t m = 0; m < matrices; ++m)
        for (std::uint32_t row = 0; row < 8; ++row) {
          const std::uint32_t t = g0 + 32 * warp + m % 4 * 8 + row;
          event(t, in, pc, core_row(b, 8 * (begin + m / 2), m % 2, row), 16, model::access_kind::gmma,
                static_cast<std::uint8_t>(first_part + m / 4));
        }
    }
  }

  /// Register j of a vector operand (mma.sync's operands are vectors, braces even for one).
  const decoded_operand& element_of(const decoded_operand& o, std::uint32_t j) const {
    return m_p.elements[o.index + j];
  }

  /// mma.sync.aligned m16n8kK .row.col: D = A B + C for the warp, each lane's part of A (16 x K), B
  /// (K x 8), C and D in its registers as the PTX ISA's fragments give them (g = lane / 4, t = lane
  /// % 4, e elements a 32-bit register): A register j holds row g + 8 (j % 2), columns e t + 4e (j / 2)
  /// and the e - 1 next; B register j rows e t + 4e j and the next, column g; a 32-bit C or D register
  /// i row g + 8 (i / 2), column 2 t + i % 2; an f16 pair j row g + 8 j, columns 2 t and 2 t + 1.
  /// Products are summed in k order from C, in f32 (f16 results rounded once) or exactly for s32.
  void warp_mma(const decoded_instruction& in, std::uint32_t pc, std::uint32_t first, std::uint32_t group) {
    if (group != 0xffffffffu) fail(pc, m_p.opcodes[pc] + " needs the 32 lanes of the warp");
    const std::uint32_t k = in.count, bits = in.type2.bits, per = 32 / bits;
    const std::uint32_t a_regs = k * bits / 64, b_regs = k * bits / 128;
    const bool integer = in.type.cls == type_class::sint;
    const auto value = [&](std::uint64_t word, std::uint32_t h, value_type t) {
      return matrix_value(word >> (bits * h) & mask_of(static_cast<int>(bits)), t);
    };
    std::vector<double> av(std::size_t{16} * k), bv(std::size_t{k} * 8);
    for (std::uint32_t l = 0; l < 32; ++l) {
      const std::uint64_t* r = regs(first + l);
      const std::uint32_t g = l / 4, t = l % 4;
      for (std::uint32_t j = 0; j < a_regs; ++j) {
        const std::uint64_t word = get(r, element_of(in.op[1], j), 32);
        const std::uint32_t row = g + 8 * (j % 2), col = per * t + 4 * per * (j / 2);
        for (std::uint32_t h = 0; h < per; ++h) av[row * k + col + h] = value(word, h, in.type2);
      }
      for (std::uint32_t j = 0; j < b_regs; ++j) {
        const std::uint64_t word = get(r, element_of(in.op[2], j), 32);
        for (std::uint32_t h = 0; h < per; ++h) bv[(per * t + 4 * per * j + h) * 8 + g] = value(word, h, in.type3);
      }
    }
    for (std::uint32_t l = 0; l < 32; ++l) {
      std::uint64_t* r = regs(first + l);
      const std::uint32_t g = l / 4, t = l % 4;
      const auto sum = [&](std::uint32_t row, std::uint32_t col, auto acc) {
        for (std::uint32_t kk = 0; kk < k; ++kk) acc += static_cast<decltype(acc)>(av[row * k + kk] * bv[kk * 8 + col]);
        return acc;
      };
      if (in.type.bits == 32) {
        std::array<std::uint64_t, 4> c{};
        for (std::uint32_t i = 0; i < 4; ++i) c[i] = get(r, element_of(in.op[3], i), 32) & 0xffffffffu;
        for (std::uint32_t i = 0; i < 4; ++i) {
          const std::uint32_t row = g + 8 * (i / 2), col = 2 * t + i % 2;
          std::uint64_t out = 0;
          if (integer) {
            out = s32_result(sum(row, col, static_cast<std::int64_t>(sext(c[i], 32))),
                             in.mode != 0); // mode: .satfinite
          } else {
            out = std::bit_cast<std::uint32_t>(sum(row, col, std::bit_cast<float>(static_cast<std::uint32_t>(c[i]))));
          }
          set(r, element_of(in.op[0], i), out, 32);
        }
      } else {
        std::array<std::uint64_t, 2> c{};
        for (std::uint32_t j = 0; j < 2; ++j) c[j] = get(r, element_of(in.op[3], j), 32) & 0xffffffffu;
        for (std::uint32_t j = 0; j < 2; ++j) {
          std::uint64_t pair = 0;
          for (std::uint32_t h = 0; h < 2; ++h) {
            const auto acc = static_cast<float>(to_double(c[j] >> (16 * h) & 0xffffu, in.type));
            pair |= from_double(sum(g + 8 * j, 2 * t + h, acc), in.type, 1) << (16 * h);
          }
          set(r, element_of(in.op[0], j), pair, 32);
        }
      }
    }
  }

  /// ldmatrix / stmatrix .m8n8 .b16: lanes 8i..8i+7 give the 16-byte rows of matrix i; lane l holds
  /// elements (l / 4, 2 (l % 4)) and (l / 4, 2 (l % 4) + 1) of each matrix in one 32-bit register
  /// (.trans: (2 (l % 4), l / 4) and (2 (l % 4) + 1, l / 4)).
  void matrix(const decoded_instruction& in, std::uint32_t pc, std::uint32_t first, std::uint32_t group) {
    const std::uint32_t rows = 8u * in.count;
    const std::uint32_t need = rows >= 32 ? ~0u : (1u << rows) - 1;
    if ((group & need) != need) fail(pc, m_p.opcodes[pc] + " needs lanes 0 to " + std::to_string(rows - 1));
    std::array<std::uint8_t*, 32> row{};
    for (std::uint32_t l = 0; l < rows; ++l) {
      std::uint64_t address = address_of(regs(first + l), in.op[1]);
      state_space space = in.space;
      row[l] = locate(first + l, pc, space, address, 16, in.code == opcode::stmatrix);
      if (space != state_space::shared)
        fail(pc, "the row address of lane " + std::to_string(l) + " is not shared memory");
      event(first + l, in, pc, address, 16,
            in.code == opcode::ldmatrix ? model::access_kind::ldsm : model::access_kind::stsm);
    }
    auto element = [&](std::uint32_t i, std::uint32_t r, std::uint32_t c) { return row[8 * i + r] + 2 * c; };
    for (std::uint32_t l = 0; l < 32; ++l) {
      if ((group >> l & 1) == 0) continue;
      std::uint64_t* r = regs(first + l);
      for (std::uint32_t i = 0; i < in.count; ++i) {
        const decoded_operand& reg = m_p.elements[in.op[0].index + i];
        std::uint8_t* lo = in.flag ? element(i, 2 * (l % 4), l / 4) : element(i, l / 4, 2 * (l % 4));
        std::uint8_t* hi = in.flag ? element(i, 2 * (l % 4) + 1, l / 4) : element(i, l / 4, 2 * (l % 4) + 1);
        if (in.code == opcode::ldmatrix) {
          std::uint16_t a = 0, b = 0;
          std::memcpy(&a, lo, 2);
          std::memcpy(&b, hi, 2);
          set(r, reg, std::uint64_t{a} | std::uint64_t{b} << 16, 32);
        } else {
          const std::uint64_t v = get(r, reg, 32);
          const auto a = static_cast<std::uint16_t>(v), b = static_cast<std::uint16_t>(v >> 16);
          std::memcpy(lo, &a, 2);
          std::memcpy(hi, &b, 2);
        }
      }
    }
  }

  const program& m_p;
  const launch& m_l;
  global_memory& m_global;
  std::uint32_t m_n = 0;
  std::uint64_t m_steps = 0;
  std::vector<std::uint8_t> m_shared;
  std::vector<std::uint64_t> m_regs;
  std::vector<std::uint32_t> m_arrivals;
  std::vector<std::uint8_t> m_local; ///< each thread's .local bytes, one after the other
  std::vector<thread> m_threads;
  cta_result m_result;
  std::map<std::uint64_t, mbarrier_state> m_barriers; ///< by shared address
  std::array<named_barrier, 16> m_named{};            ///< bar.sync / bar.arrive a, b
  struct {
    std::uint8_t kind = 0; ///< decoded_instruction::mode of bar.red: 1 popc, 2 and, 3 or
    std::uint32_t arrived = 0, true_count = 0;
  } m_reduction; ///< the bar.red the CTA's threads are arriving at
};

} // namespace

void global_memory::add(std::uint64_t address, lazy_bytes bytes) {
  const auto next = m_buffers.lower_bound(address);
  if (next != m_buffers.end() && next->first < address + bytes.size())
    throw std::invalid_argument("global buffers overlap");
  if (next != m_buffers.begin() && std::prev(next)->first + std::prev(next)->second.bytes.size() > address)
    throw std::invalid_argument("global buffers overlap");
  buffer_bytes& b = m_buffers[address];
  b.written.clear();
  b.bytes = std::move(bytes);
  m_last = nullptr;
}

std::span<const std::uint8_t> global_memory::buffer(std::uint64_t address) { return m_buffers.at(address).bytes.all(); }

std::span<const std::uint8_t> global_memory::buffer(std::uint64_t address) const {
  const lazy_bytes& b = m_buffers.at(address).bytes;
  return {b.made(0, b.size()), b.size()};
}

const std::vector<std::uint64_t>& global_memory::written(std::uint64_t buffer_address) const {
  return m_buffers.at(buffer_address).written;
}

void global_memory::clear_written() {
  for (auto& [address, b] : m_buffers) b.written.clear();
}

std::pair<lazy_bytes, std::vector<std::uint64_t>> global_memory::release(std::uint64_t buffer_address) {
  buffer_bytes& b = m_buffers.at(buffer_address);
  m_last = nullptr;
  return {std::exchange(b.bytes, {}), std::exchange(b.written, {})};
}

global_memory::buffer_bytes* global_memory::holding(std::uint64_t address, std::size_t size) {
  // Most accesses fall in the buffer of the one before: that one is tried first.
  if (m_last != nullptr && address >= m_last_address && address - m_last_address <= m_last->bytes.size() &&
      size <= m_last->bytes.size() - (address - m_last_address))
    return m_last;
  auto it = m_buffers.upper_bound(address);
  if (it == m_buffers.begin()) return nullptr;
  --it;
  if (address + size > it->first + it->second.bytes.size()) return nullptr;
  m_last = &it->second;
  m_last_address = it->first;
  return m_last;
}

std::uint8_t* global_memory::find(std::uint64_t address, std::size_t size) {
  buffer_bytes* b = holding(address, size);
  return b == nullptr ? nullptr : b->bytes.at(address - m_last_address, size);
}

std::uint8_t* global_memory::find_for_write(std::uint64_t address, std::size_t size) {
  buffer_bytes* b = holding(address, size);
  if (b == nullptr) return nullptr;
  if (!m_track_writes) return b->bytes.at(address - m_last_address, size);
  auto& mask = b->written;
  if (mask.empty()) mask.assign((b->bytes.size() + 63) / 64, 0);
  const std::size_t first = address - m_last_address, end = first + size;
  for (std::size_t i = first; i < end;) { // a word of the mask at a time
    const std::size_t bit = i % 64, n = std::min<std::size_t>(64 - bit, end - i);
    mask[i / 64] |= (n == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << n) - 1)) << bit;
    i += n;
  }
  return b->bytes.at(first, size);
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

cta_result run_cta(const program& p, const launch& l, global_memory& global) { return cta_runner(p, l, global).run(); }

cta_result run_cta(const module& m, const entry& e, const launch& l, global_memory& global) {
  return run_cta(prepare(m, e), l, global);
}

} // namespace bb::ptx
