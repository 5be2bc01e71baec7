#pragma once
/// A PTX module as the interpreter needs it: the `.entry` functions with their parameters,
/// registers, shared variables, labels and instructions, each instruction with its PTX line and
/// the source line of the last `.loc` before it. No CUDA headers (docs/bank-model.md, "Predicting
/// from the kernel's code (PTX)").
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace bb::ptx {

/// A PTX text the parser or the interpreter cannot follow; the message names the PTX line and,
/// where known, the source line.
class ptx_error : public std::runtime_error {
public:
  ptx_error(const std::string& what, int ptx_line) : std::runtime_error(what), m_ptx_line(ptx_line) {}
  [[nodiscard]] int ptx_line() const noexcept { return m_ptx_line; }

private:
  int m_ptx_line;
};

enum class operand_kind : std::uint8_t {
  reg,       ///< %r1, %p2, %tid.x: `name`
  immediate, ///< 42, 0x1F, -3, 0f3F800000: `value` (float immediates as their bits)
  symbol,    ///< a label, a shared variable or a parameter: `name`
  memory,    ///< [name+offset] or [offset]: `name` (may be empty) and `value`; [map, {c0, ...}]: `elements`
  vector,    ///< {%f1, %f2}: `elements`
  sink       ///< _ (a vector element whose value is dropped)
};

struct operand {
  operand_kind kind = operand_kind::immediate;
  std::string name;
  std::int64_t value = 0;
  bool float_immediate = false; ///< 0f... (32-bit bits) or 0d... (64-bit bits)
  bool negated = false;         ///< "!%p": a predicate register read negated (vote, bar.red)
  std::vector<operand> elements;
};

struct instruction {
  std::string guard; ///< predicate register of @%p1 / @!%p1; empty when unguarded
  bool guard_negated = false;
  std::string opcode;             ///< "ld.shared.f32"
  std::vector<std::string> parts; ///< the opcode split at its dots: {"ld", "shared", "f32"}
  std::vector<operand> operands;
  int ptx_line = 0;
  int file = 0; ///< `.file` index of the last `.loc` (0: none)
  int line = 0; ///< source line of the last `.loc` (0: none)
};

struct parameter {
  std::string name;
  std::string type; ///< "u64", "b8", ...
  int size = 0;     ///< bytes (an array: element size x count)
  int offset = 0;   ///< in the parameter buffer, aligned to `align`
  int align = 0;
};

struct shared_variable {
  std::string name;
  int align = 1;
  int size = 0;         ///< bytes; 0 for `.extern .shared` (dynamic)
  bool dynamic = false; ///< `.extern .shared name[]`: placed after the static ones, sized at launch
};

struct register_declaration {
  std::string type; ///< "b32", "pred", ...
  std::string name; ///< "%r" for %r<55>, else the register itself
  int count = 0;    ///< 55 for %r<55> (registers %r0 .. %r54); 0 for a single register
};

struct entry {
  std::string name;
  int ptx_line = 0;
  std::vector<parameter> params;
  std::vector<register_declaration> registers;
  std::vector<shared_variable> shared; ///< the entry's own; module.shared come first
  std::vector<shared_variable> local;  ///< `.local` arrays (the stack frame nvcc calls __local_depot)
  std::map<std::string, int> labels;   ///< label -> index of the instruction after it
  std::vector<instruction> body;
  [[nodiscard]] int param_bytes() const;
};

/// A module-level `.const` variable with its initial bytes (zeros where no initializer).
struct module_variable {
  std::string name;
  int align = 1;
  std::vector<std::uint8_t> bytes;
};

struct module {
  std::vector<entry> entries;
  std::vector<shared_variable> shared;    ///< declared outside any entry
  std::vector<module_variable> constants; ///< `.const`, those whose initial values are numbers
  std::map<int, std::string> files;       ///< `.file N "name"`
  /// The entry named `name`; throws std::out_of_range naming the entries there are.
  [[nodiscard]] const entry& find(std::string_view name) const;
};

/// Parses a PTX text. Throws ptx_error naming the line of the first thing it cannot read.
module parse(std::string_view text);

/// Bytes of one element of a PTX type ("u32" -> 4, "pred" -> 1); 0 for a name that is no type.
int type_bytes(std::string_view type);

} // namespace bb::ptx
