#include "runner/source/launch_args.hpp"

#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "runner/common/error.hpp"
#include "runner/common/path_text.hpp"
#include "runner/registry/registry.hpp"

namespace bb::source {

launch_shape shape_of(const config::source_variant& v, const nlohmann::json& params, const std::string& where) {
  auto dims = [&](const std::vector<std::string>& exprs, const char* what) {
    std::array<std::uint32_t, 3> d{1, 1, 1};
    for (std::size_t i = 0; i < exprs.size() && i < 3; ++i) {
      const std::int64_t n = config::evaluate_param_expression(exprs[i], params, where + ": " + what);
      if (n < 1 || n > 0x7fffffff)
        throw unsupported_parameter(where + ": " + what + " '" + exprs[i] + "' is " + std::to_string(n) +
                                    "; each dimension must be 1 .. 2^31-1");
      d[i] = static_cast<std::uint32_t>(n);
    }
    return d;
  };
  launch_shape s;
  s.grid = dims(v.grid, "grid");
  s.block = dims(v.block, "block");
  const std::int64_t shared = config::evaluate_param_expression(v.shared_bytes, params, where + ": shared_bytes");
  if (shared < 0) throw unsupported_parameter(where + ": shared_bytes is " + std::to_string(shared));
  s.shared_bytes = static_cast<std::uint64_t>(shared);
  return s;
}

std::vector<unsigned char> scalar_bytes(const config::source_arg& a, const nlohmann::json& params,
                                        const std::string& where) {
  const element_type& t = type_named(a.type);
  std::vector<unsigned char> value(t.bytes);
  const std::string text = config::substitute_params(a.expression, params);
  double v = 0;
  if (t.is_float && text.find_first_of(".eE") != std::string::npos)
    v = std::stod(text);
  else
    v = static_cast<double>(
        config::evaluate_param_expression(a.expression, params, where + ": scalar '" + a.name + "'"));
  store_number(value, t, 0, v);
  return value;
}

std::size_t buffer_count(const config::source_arg& a, const element_type& t, const nlohmann::json& params,
                         const std::string& where, std::uint64_t& bytes) {
  const std::int64_t count = config::evaluate_param_expression(a.expression, params,
                                                               where + ": buffer '" + a.name + "' count");
  if (count < 0 || __builtin_mul_overflow(static_cast<std::uint64_t>(count), t.bytes, &bytes))
    throw unsupported_parameter(
        where + ": buffer '" + a.name + "' count '" + a.expression + "' = " + std::to_string(count) +
        (count < 0 ? " is negative" : " elements of " + std::to_string(t.bytes) + " bytes overflow 64 bits"));
  return static_cast<std::size_t>(count);
}

// A buffer's initial contents, generated (or read) once per process while the cache holds them.
shared_bytes::handle initial_bytes(const config::source_arg& a, const element_type& t, std::size_t count,
                                   std::uint64_t seed, std::size_t arg_index, const nlohmann::json& params) {
  std::uint64_t value_bits = 0;
  std::memcpy(&value_bits, &a.value, sizeof value_bits);
  std::string key = "initial contents\n" + a.init + "\n" + t.name + "\n" + std::to_string(count) + "\n" +
                    std::to_string(seed) + "\n" + std::to_string(arg_index) + "\n" + std::to_string(value_bits) + "\n" +
                    a.formula + "\n" + formula_inputs(a, params);
  if (a.init == "file") { // the file as it is now: its size and modification time join the key
    std::error_code ec;
    const auto size = std::filesystem::file_size(a.file, ec);
    const auto when = std::filesystem::last_write_time(a.file, ec);
    if (ec)
      return std::make_shared<const shared_bytes::blocks>(
          shared_bytes::blocks{initial_contents(a, t, count, seed, arg_index, params)}); // its own message
    key += "\n" + a.file + "\n" + std::to_string(size) + "\n" + std::to_string(when.time_since_epoch().count());
  }
  if (auto hit = shared_bytes::process().find(key)) return hit;
  return shared_bytes::process().keep(key, {initial_contents(a, t, count, seed, arg_index, params)});
}

ptx::tensor_map tensor_map_of(const config::source_arg& a, const element_type& t, const nlohmann::json& params,
                              const std::string& where, std::uint64_t global) {
  ptx::tensor_map m;
  m.global = global;
  m.rank = static_cast<std::uint32_t>(a.dims.size());
  m.element_bytes = static_cast<std::uint32_t>(t.bytes);
  m.swizzle_bits = static_cast<std::uint32_t>(a.swizzle_bits);
  const std::string what = where + ": tensor map '" + a.name + "'";
  if (m.rank < 1 || m.rank > ptx::tensor_map::k_max_rank || a.box.size() != a.dims.size())
    throw unsupported_parameter(what + " needs 1 to 5 dims and a box extent for each");
  std::uint64_t stride = t.bytes;
  for (std::uint32_t k = 0; k < m.rank; ++k) {
    const std::int64_t d = config::evaluate_param_expression(a.dims[k], params,
                                                             what + " dims[" + std::to_string(k) + "]");
    const std::int64_t b = config::evaluate_param_expression(a.box[k], params,
                                                             what + " box[" + std::to_string(k) + "]");
    if (d < 1 || d > (std::int64_t{1} << 32))
      throw unsupported_parameter(what + ": dims[" + std::to_string(k) + "] '" + a.dims[k] + "' is " +
                                  std::to_string(d) + "; TMA takes 1 .. 2^32");
    if (b < 1 || b > 256)
      throw unsupported_parameter(what + ": box[" + std::to_string(k) + "] '" + a.box[k] + "' is " + std::to_string(b) +
                                  "; TMA takes 1 .. 256 elements a dimension");
    m.dims[k] = static_cast<std::uint64_t>(d);
    m.box[k] = static_cast<std::uint32_t>(b);
    if (k > 0) {
      m.strides[k] = stride;
      if (stride % 16 != 0 || stride >= (std::uint64_t{1} << 40))
        throw unsupported_parameter(what + ": the stride of dimension " + std::to_string(k) + " is " +
                                    std::to_string(stride) +
                                    " bytes; TMA needs a multiple of 16 below 2^40 (dims[0] x element size)");
    }
    stride *= m.dims[k];
  }
  const std::uint64_t row = std::uint64_t{m.box[0]} * t.bytes;
  if (row % 16 != 0)
    throw unsupported_parameter(what + ": box[0] x " + std::to_string(t.bytes) + " bytes = " + std::to_string(row) +
                                "; TMA moves whole 16-byte chunks of the innermost dimension");
  if (m.swizzle_bits != 0 && row > (16u << m.swizzle_bits))
    throw unsupported_parameter(what + ": a box row of " + std::to_string(row) + " bytes is wider than the " +
                                std::to_string(16u << m.swizzle_bits) + "-byte swizzle span");
  return m;
}

std::vector<std::size_t> argument_sizes(const config::source_variant& v) {
  std::vector<std::size_t> sizes;
  for (const auto& a : v.args)
    sizes.push_back(a.tensor_map ? ptx::tensor_map::k_bytes : a.is_buffer ? sizeof(void*) : type_named(a.type).bytes);
  return sizes;
}

void check_parameter_sizes(const std::string& where, const config::source_variant& v, const std::string& kernel,
                           const std::vector<std::size_t>& kernel_sizes) {
  const std::vector<std::size_t> args = argument_sizes(v);
  if (args == kernel_sizes) return;
  auto list = [](const std::vector<std::size_t>& sizes) {
    std::string s;
    for (std::size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
    return s.empty() ? std::string("-") : s;
  };
  throw error(exit_code::usage, where + ": kernel '" + kernel + "' in " + shown_path(v.file) + " takes " +
                                    std::to_string(kernel_sizes.size()) + " parameter(s) of " + list(kernel_sizes) +
                                    " bytes; args: lists " + std::to_string(args.size()) + " of " + list(args) +
                                    " bytes (a buffer is a pointer, 8 bytes)");
}

void check_parameter_types(const std::string& where, const config::source_variant& v, const std::string& kernel,
                           const std::vector<std::string>& ptx_types) {
  for (std::size_t i = 0; i < v.args.size() && i < ptx_types.size(); ++i) {
    const config::source_arg& a = v.args[i];
    const std::string& ptx = ptx_types[i];
    if (a.is_buffer || ptx.empty() || (ptx[0] != 'f' && ptx[0] != 'u' && ptx[0] != 's')) continue;
    const bool kernel_float = ptx[0] == 'f';
    const bool declared_float = type_named(a.type).is_float;
    if (kernel_float == declared_float) continue;
    throw error(exit_code::usage,
                fmt::format("{}: scalar '{}' is declared {} ({}), but parameter {} of kernel '{}' in {} is .{} ({}): "
                            "its bytes would be read as the other kind of number; declare the type the kernel takes",
                            where, a.name, a.type, declared_float ? "a floating-point number" : "an integer", i + 1,
                            kernel, shown_path(v.file), ptx, kernel_float ? "a floating-point number" : "an integer"));
  }
}

} // namespace bb::source
