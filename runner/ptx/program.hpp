#pragma once
/// An entry decoded once for the interpreter: opcodes as an enum, operands resolved to register
/// indices, immediates and offsets (docs/bank-model.md, "Predicting from the kernel's code
/// (PTX)"). Made by ptx::prepare (run.hpp). No CUDA headers.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runner/ptx/parse.hpp"

namespace bb::ptx {

enum class opcode : std::uint8_t {
  unsupported, ///< fails when a thread runs it, with program::errors[i]
  nop,         ///< membar, fence, cp.async.commit_group / wait_group, prefetch
  bra,
  exit,
  bar,
  mov,
  add,
  sub,
  mul_lo,
  mul_hi,
  mul_wide,
  mad_lo,
  mad_hi,
  mad_wide,
  div,
  rem,
  min,
  max,
  neg,
  abs,
  sad,
  dp4a, ///< mode bit 0: a's bytes signed, bit 1: b's
  band,
  bor,
  bxor,
  bnot,
  cnot,
  shl,
  shr,
  shf_l,
  shf_r,
  bfe,
  bfi,
  prmt,
  popc,
  clz,
  brev,
  lop3,
  fadd,
  fsub,
  fmul,
  fdiv,
  fma,
  fmin,
  fmax,
  fneg,
  fabs,
  frcp,
  fsqrt,
  frsqrt,
  fex2,
  flg2,
  fsin,
  fcos,
  setp,
  selp,
  slct,
  cvt,
  cvt_pack,   ///< two values into one register: f16x2 / bf16x2 from two f32, e4m3x2 / e5m2x2 from two f32 or an f16x2
  cvt_unpack, ///< f16x2 from e4m3x2 / e5m2x2: the two bytes of a 16-bit register, each to an f16
  cvta,
  isspacep,
  ld,
  st,
  atom,
  red,
  cp_async,
  mbarrier,  ///< mode: mbarrier_op
  tma_load,  ///< cp.async.bulk.tensor, global to shared
  tma_store, ///< cp.async.bulk.tensor, shared to global
  // warp-wide: every lane the instruction names must be at it before any runs it
  shfl,
  vote,
  match,
  activemask,
  redux,
  warp_sync,
  ldmatrix,
  stmatrix,
  mma,   ///< mma.sync.aligned m16n8kK: the 32 lanes of a warp at once, operands in registers
  wgmma, ///< warpgroup-wide: the four warps of a warpgroup, every thread at it
  elect, ///< elect.sync: the lowest lane of the member mask
};

/// mbarrier operations (decoded_instruction::mode of opcode::mbarrier).
enum class mbarrier_op : std::uint8_t { init, arrive, arrive_expect_tx, expect_tx, wait_parity, wait_state, inval };

/// What a PTX type is, as the interpreter computes with it.
/// tf32, e4m3 and e5m2 are wgmma's operand types alone (tf32: an f32 whose low 13 mantissa bits are
/// ignored; e4m3: 4 exponent bits, 3 mantissa bits, no infinity; e5m2: 5 and 2, IEEE-like).
enum class type_class : std::uint8_t { bits, sint, flt, f16, bf16, pred, tf32, e4m3, e5m2 };

struct value_type {
  std::uint8_t bits = 0; ///< 0: not a type the interpreter computes with
  type_class cls = type_class::bits;
};

enum class operand_type : std::uint8_t { none, reg, imm, vec, sink, clock, mem };

inline constexpr std::uint32_t k_no_register = 0xffffffffu;

/// One operand, resolved. `mem`: [reg + imm] (reg = k_no_register for [imm]).
struct decoded_operand {
  operand_type type = operand_type::none;
  std::uint32_t index = 0;    ///< register index; vec: first element in program::elements
  std::uint32_t count = 0;    ///< vec: elements
  std::uint64_t mask = ~0ull; ///< destination: the register's declared width
  std::int64_t imm = 0;
};

enum class state_space : std::uint8_t { generic, param, global, shared, constant, local };

struct decoded_instruction {
  opcode code = opcode::unsupported;
  value_type type;                          ///< the operation's type (cvt: the destination)
  value_type type2;                         ///< cvt: the source; slct: the selector; shf: .wrap
  std::uint8_t mode = 0;                    ///< comparison, atomic, shuffle, vote, rounding, ...
  std::uint8_t mode2 = 0;                   ///< setp's boolean op; cvt's saturation
  std::uint8_t count = 1;                   ///< vector elements; matrices of ldmatrix; wgmma: N / 8
  bool flag = false;                        ///< .trans, .cg, cvta.to, .wide/.hi operand widths
  state_space space = state_space::generic; ///< memory instructions
  std::uint8_t operands = 0;
  value_type type3; ///< wgmma: B's element type (type2: A's; type: D's)
  std::uint32_t guard = k_no_register;
  bool guard_negated = false;
  std::uint32_t target = 0;                 ///< bra: instruction index
  std::uint32_t trace_slot = k_no_register; ///< shared-memory instructions: index of the arrival count
  std::uint64_t mask = ~0ull;               ///< of type.bits
  std::array<decoded_operand, 6> op{};
};

/// Special registers, each given a register slot that a thread's start fills in.
enum class special_register : std::uint8_t {
  tid_x,
  tid_y,
  tid_z,
  ntid_x,
  ntid_y,
  ntid_z,
  ctaid_x,
  ctaid_y,
  ctaid_z,
  nctaid_x,
  nctaid_y,
  nctaid_z,
  laneid,
  warpid,
  nwarpid,
  smid,
  nsmid,
  gridid,
  lanemask_eq,
  lanemask_lt,
  lanemask_le,
  lanemask_gt,
  lanemask_ge,
  dynamic_smem_size,
  total_smem_size
};

/// One entry, decoded: run it with run_cta(program, launch, global_memory) for any number of CTAs.
struct program {
  std::string name;
  int ptx_line = 0;
  std::vector<decoded_instruction> code;
  std::vector<decoded_operand> elements;    ///< of vector operands
  std::vector<std::string> errors;          ///< per instruction: why it cannot run (opcode::unsupported)
  std::vector<std::string> opcodes;         ///< per instruction, for messages
  std::vector<std::array<int, 3>> location; ///< per instruction: PTX line, .loc file, .loc line
  std::map<int, std::string> files;
  std::uint32_t registers = 0;
  std::vector<std::pair<std::uint32_t, special_register>> specials;
  std::uint32_t traced = 0;              ///< instructions with an arrival count
  std::uint32_t static_shared_bytes = 0; ///< the dynamic part starts here
  std::vector<std::uint8_t> constant;    ///< the module's .const variables, laid out
  std::uint32_t local_bytes = 0;         ///< each thread's .local arrays
  int param_bytes = 0;
};

} // namespace bb::ptx
