#pragma once
/// A source configuration's launch as its experiment writes it, on the host and without a GPU:
/// grid, block and dynamic shared memory, each scalar argument's bytes, each buffer's size, and
/// the check of the argument list against the kernel's parameters. The GPU path (problem.cpp) and
/// the bank model's emulation (emulate.hpp) both start here.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/config/experiment.hpp"
#include "runner/ptx/tensor_map.hpp"
#include "runner/source/inputs.hpp"
#include "runner/source/shared_bytes.hpp"

namespace bb::source {

struct launch_shape {
  std::array<std::uint32_t, 3> grid{1, 1, 1}, block{1, 1, 1};
  std::uint64_t shared_bytes = 0; ///< dynamic shared memory
  [[nodiscard]] std::uint64_t threads() const { return std::uint64_t{block[0]} * block[1] * block[2]; }
  [[nodiscard]] std::uint64_t blocks() const { return std::uint64_t{grid[0]} * grid[1] * grid[2]; }
};

/// `v`'s grid, block and shared_bytes at `params`. Throws unsupported_parameter (`where` first)
/// for a dimension outside 1 .. 2^31-1 or negative shared memory; bb::error (usage) for an
/// expression that does not evaluate.
launch_shape shape_of(const config::source_variant& v, const nlohmann::json& params, const std::string& where);

/// Scalar argument `a`'s bytes as the kernel takes it (its type's size, little-endian).
std::vector<unsigned char> scalar_bytes(const config::source_arg& a, const nlohmann::json& params,
                                        const std::string& where);

/// Buffer argument `a`'s element count at `params`; `bytes` gets count x element size. Throws
/// unsupported_parameter for a negative count or one whose bytes overflow 64 bits.
std::size_t buffer_count(const config::source_arg& a, const element_type& t, const nlohmann::json& params,
                         const std::string& where, std::uint64_t& bytes);

/// Buffer argument `a`'s initial contents (initial_contents()), made or read once per process
/// while shared_bytes::process() keeps them; an init file joins the key with its size and time, a
/// formula with the parameters it reads.
shared_bytes::handle initial_bytes(const config::source_arg& a, const element_type& t, std::size_t count,
                                   std::uint64_t seed, std::size_t arg_index, const nlohmann::json& params);

/// Tensor-map argument `a` over the tensor at `global` (its buffer), at `params`: dims, dense
/// strides, box and swizzle, checked as cuTensorMapEncodeTiled checks them (box extents 1 to 256,
/// whole 16-byte chunks innermost, global strides multiples of 16, a swizzled box row within its
/// span). Throws unsupported_parameter (`where` first) naming the rule.
ptx::tensor_map tensor_map_of(const config::source_arg& a, const element_type& t, const nlohmann::json& params,
                              const std::string& where, std::uint64_t global);

/// The bytes each argument of `v` passes (a buffer: a pointer, 8 bytes; a tensor map: 128).
std::vector<std::size_t> argument_sizes(const config::source_variant& v);

/// Throws bb::error (usage) naming the kernel, the file and both lists when the kernel's parameter
/// sizes are not the arguments' sizes.
void check_parameter_sizes(const std::string& where, const config::source_variant& v, const std::string& kernel,
                           const std::vector<std::size_t>& kernel_sizes);

/// Throws bb::error (usage) where a scalar argument is declared a floating-point type and the
/// kernel's parameter is an integer in its PTX (.u32, .s64...), or the other way round: its bytes
/// would be read as the other kind of number. `ptx_types` are the PTX parameter types in order
/// ("f32", "u32", "b8"...); untyped ones (.b8 arrays, .b16) are not judged.
void check_parameter_types(const std::string& where, const config::source_variant& v, const std::string& kernel,
                           const std::vector<std::string>& ptx_types);

} // namespace bb::source
