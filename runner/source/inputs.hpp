#pragma once
/// Source variants' buffers on the host: element types, initial contents (seeded uniform, zeros,
/// iota, a value, a file) and element values for messages and tolerances. No CUDA.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runner/config/experiment.hpp"

namespace bb::source {

struct element_type {
  const char* name;
  std::size_t bytes;
  bool is_float, is_signed;
};

/// float, double, float16, bfloat16, int8 .. uint64; throws bb::error (usage) for another name.
const element_type& type_named(const std::string& name);

/// Stores `v` converted to `t` as element `i` of `out` (float16 and bfloat16 rounded to nearest even).
void store_number(std::vector<unsigned char>& out, const element_type& t, std::size_t i, double v);

/// Element at `p` of type `t`, as a double.
double load_number(const unsigned char* p, const element_type& t);

/// Whether output element `got` passes against `want` (both of type `t`): the same bytes, or,
/// with a tolerance above 0, |got - want| <= tolerance * max(1, |want|) over their values as
/// doubles (float16 and bfloat16 too). A NaN passes only bit for bit.
bool elements_match(const unsigned char* got, const unsigned char* want, const element_type& t, double tolerance);

/// The initial bytes of buffer argument `a` (argument `arg_index` of its variant), `count`
/// elements of `t`. uniform: floats as kernels/common/uniform.hpp's uniform_at(seed, i), the
/// first argument with the experiment's seed and each later one its own (float16 and bfloat16:
/// the same values rounded to nearest even); integers the low bytes of the same generator. formula:
/// element i is the formula's value with i and the configuration's parameters `params` (integers
/// keep its low bytes, as iota's; floating types its value rounded). Throws bb::error (usage) when
/// an init file's size is not the buffer's, or a formula fails (overflow, division by zero, a name
/// that is not an integer parameter), naming the buffer and the element.
std::vector<unsigned char> initial_contents(const config::source_arg& a, const element_type& t, std::size_t count,
                                            std::uint64_t seed, std::size_t arg_index, const nlohmann::json& params);

/// Elements [first, first + count) of what initial_contents gives for a generated init (zeros,
/// iota, value, uniform, formula; not file), written to `out` (count * t.bytes bytes): each element
/// is a function of the seed, the argument, the parameters and its index alone, so a buffer can be
/// made a part at a time.
void initial_elements(const config::source_arg& a, const element_type& t, std::uint64_t seed, std::size_t arg_index,
                      const nlohmann::json& params, std::size_t first, std::size_t count, unsigned char* out);

/// The values of what a formula init reads from the configuration (its names other than i), for
/// cache keys: "n=4096 tile=32"; empty for another init.
std::string formula_inputs(const config::source_arg& a, const nlohmann::json& params);

} // namespace bb::source
