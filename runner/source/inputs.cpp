#include "runner/source/inputs.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "runner/common/error.hpp"
#include "runner/common/path_text.hpp"
#include "runner/common/suggest.hpp"
#include "runner/config/expression.hpp"
#include "runner/source/float16.hpp"

namespace bb::source {

namespace {

const element_type k_types[] = {{"float", 4, true, true},    {"double", 8, true, true},   {"float16", 2, true, true},
                                {"bfloat16", 2, true, true}, {"int8", 1, false, true},    {"uint8", 1, false, false},
                                {"int16", 2, false, true},   {"uint16", 2, false, false}, {"int32", 4, false, true},
                                {"uint32", 4, false, false}, {"int64", 8, false, true},   {"uint64", 8, false, false}};

} // namespace

const element_type& type_named(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& t : k_types) {
    if (name == t.name) return t;
    names.emplace_back(t.name);
  }
  const std::string hint = did_you_mean(name, names);
  throw error(exit_code::usage, "unknown element type '" + name + "'" + (hint.empty() ? "" : " (" + hint + ")"));
}

namespace {

// The splitmix64 of kernels/common/uniform.hpp: floats in [-1, 1) exactly as the built-in
// families' inputs, integers over their type's whole range.
std::uint64_t mix(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed * 0xd1b54a32d192ed03ull + i + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

template <class T> void put_at(unsigned char* out, std::size_t i, T v) {
  std::memcpy(out + i * sizeof(T), &v, sizeof(T));
}

// An integer element holds the value truncated toward zero, modulo 2^bits (an iota of 300 in an
// int8 buffer is 44, -2.75 in a uint8 one is 254): converting a double straight to a type that
// cannot hold it is undefined, while narrowing an integer is defined.
std::uint64_t wrapped(double v) {
  constexpr double k_two_63 = 9223372036854775808.0, k_two_64 = 18446744073709551616.0;
  if (!std::isfinite(v)) return 0;
  double t = std::trunc(v);
  if (t >= k_two_64 || t <= -k_two_64) t = std::fmod(t, k_two_64); // exact: t is an integer
  if (t >= k_two_63) return static_cast<std::uint64_t>(t);
  if (t < -k_two_63) t += k_two_64; // exact at this magnitude
  return t >= k_two_63 ? static_cast<std::uint64_t>(t) : static_cast<std::uint64_t>(static_cast<std::int64_t>(t));
}

void store_number_at(unsigned char* out, const element_type& t, std::size_t i, double v) {
  const std::string n = t.name;
  if (n == "float")
    put_at(out, i, static_cast<float>(v));
  else if (n == "double")
    put_at(out, i, v);
  else if (n == "float16")
    put_at(out, i, to_float16(v));
  else if (n == "bfloat16")
    put_at(out, i, to_bfloat16(v));
  else if (n == "int8")
    put_at(out, i, static_cast<std::int8_t>(wrapped(v)));
  else if (n == "uint8")
    put_at(out, i, static_cast<std::uint8_t>(wrapped(v)));
  else if (n == "int16")
    put_at(out, i, static_cast<std::int16_t>(wrapped(v)));
  else if (n == "uint16")
    put_at(out, i, static_cast<std::uint16_t>(wrapped(v)));
  else if (n == "int32")
    put_at(out, i, static_cast<std::int32_t>(wrapped(v)));
  else if (n == "uint32")
    put_at(out, i, static_cast<std::uint32_t>(wrapped(v)));
  else if (n == "int64")
    put_at(out, i, static_cast<std::int64_t>(wrapped(v)));
  else
    put_at(out, i, wrapped(v));
}

} // namespace

void store_number(std::vector<unsigned char>& out, const element_type& t, std::size_t i, double v) {
  store_number_at(out.data(), t, i, v);
}

double load_number(const unsigned char* p, const element_type& t) {
  const std::string n = t.name;
  auto get = [&](auto tag) {
    decltype(tag) v;
    std::memcpy(&v, p, sizeof v);
    return static_cast<double>(v);
  };
  if (n == "float") return get(float{});
  if (n == "double") return get(double{});
  if (n == "float16" || n == "bfloat16") {
    std::uint16_t bits = 0;
    std::memcpy(&bits, p, sizeof bits);
    return n == "float16" ? from_float16(bits) : from_bfloat16(bits);
  }
  if (n == "int8") return get(std::int8_t{});
  if (n == "uint8") return get(std::uint8_t{});
  if (n == "int16") return get(std::int16_t{});
  if (n == "uint16") return get(std::uint16_t{});
  if (n == "int32") return get(std::int32_t{});
  if (n == "uint32") return get(std::uint32_t{});
  if (n == "int64") return get(std::int64_t{});
  return get(std::uint64_t{});
}

bool elements_match(const unsigned char* got, const unsigned char* want, const element_type& t, double tolerance) {
  if (std::memcmp(got, want, t.bytes) == 0) return true;
  if (tolerance <= 0) return false;
  const double g = load_number(got, t), w = load_number(want, t);
  return std::fabs(g - w) <= tolerance * std::max(1.0, std::fabs(w));
}

std::vector<unsigned char> initial_contents(const config::source_arg& a, const element_type& t, std::size_t count,
                                            std::uint64_t seed, std::size_t arg_index, const nlohmann::json& params) {
  std::vector<unsigned char> out(count * t.bytes, 0);
  if (a.init == "zeros") return out;
  if (a.init == "file") {
    std::ifstream in(a.file, std::ios::binary);
    if (!in) throw error(exit_code::usage, "buffer '" + a.name + "': cannot read " + shown_path(a.file));
    std::ostringstream ss;
    ss << in.rdbuf();
    const std::string bytes = ss.str();
    if (bytes.size() != out.size())
      throw error(exit_code::usage, "buffer '" + a.name + "': " + shown_path(a.file) + " holds " +
                                        std::to_string(bytes.size()) + " bytes, the buffer " +
                                        std::to_string(out.size()) + " (" + std::to_string(count) + " x " + t.name +
                                        ")");
    std::memcpy(out.data(), bytes.data(), out.size());
    return out;
  }
  initial_elements(a, t, seed, arg_index, params, 0, count, out.data());
  return out;
}

namespace {

// The formula's slots: i (the element's index, -1: unused) and each parameter's value.
std::vector<std::int64_t> formula_slots(const config::source_arg& a, const config::compiled_expression& f,
                                        const nlohmann::json& params, std::size_t& index_slot) {
  std::vector<std::int64_t> slots(f.names().size(), 0);
  index_slot = slots.size();
  for (std::size_t k = 0; k < slots.size(); ++k) {
    const std::string& name = f.names()[k];
    if (name == "i") {
      index_slot = k;
      continue;
    }
    if (!params.is_object() || !params.contains(name) || !params.at(name).is_number_integer())
      throw error(exit_code::usage, "buffer '" + a.name + "': init formula '" + a.formula + "' uses '" + name +
                                        "', which is " +
                                        (params.is_object() && params.contains(name)
                                             ? params.at(name).dump() + " here, not an integer"
                                             : "neither i nor a parameter of this configuration"));
    slots[k] = params.at(name).get<std::int64_t>();
  }
  return slots;
}

void formula_elements(const config::source_arg& a, const element_type& t, const nlohmann::json& params,
                      std::size_t first, std::size_t count, unsigned char* out) {
  std::optional<config::compiled_expression> f;
  try {
    f.emplace(a.formula);
  } catch (const config::expression_error& e) {
    throw error(exit_code::usage, "buffer '" + a.name + "': bad init formula " + e.what());
  }
  std::size_t index_slot = 0;
  std::vector<std::int64_t> slots = formula_slots(a, *f, params, index_slot);
  for (std::size_t i = first; i < first + count; ++i) {
    if (index_slot < slots.size()) slots[index_slot] = static_cast<std::int64_t>(i);
    std::int64_t v = 0;
    try {
      v = (*f)(slots.data());
    } catch (const config::expression_error& e) {
      throw error(exit_code::usage,
                  "buffer '" + a.name + "': init formula " + e.what() + " at element i = " + std::to_string(i));
    }
    unsigned char* to = out + (i - first) * t.bytes;
    if (t.is_float)
      store_number_at(to, t, 0, static_cast<double>(v));
    else
      std::memcpy(to, &v, t.bytes); // little-endian: the low bytes, as iota's
  }
}

} // namespace

std::string formula_inputs(const config::source_arg& a, const nlohmann::json& params) {
  if (a.init != "formula") return {};
  std::string out;
  try {
    for (const auto& name : config::expression_names(a.formula))
      if (name != "i" && params.is_object() && params.contains(name))
        out += (out.empty() ? "" : " ") + name + "=" + params.at(name).dump();
  } catch (const config::expression_error&) { // initial_elements reports it
  }
  return out;
}

void initial_elements(const config::source_arg& a, const element_type& t, std::uint64_t seed, std::size_t arg_index,
                      const nlohmann::json& params, std::size_t first, std::size_t count, unsigned char* out) {
  const std::size_t end = first + count;
  const auto at = [&](std::size_t i) { return out + (i - first) * t.bytes; }; // element i
  if (a.init == "zeros") {
    std::memset(out, 0, count * t.bytes);
    return;
  }
  if (a.init == "formula") return formula_elements(a, t, params, first, count, out);
  // Each buffer its own stream: the first uses the experiment's seed as the built-in families do.
  const std::uint64_t s = arg_index == 0 ? seed : seed + arg_index * 0x632be59bd9b4e019ull;
  if (a.init == "iota" && !t.is_float) {
    for (std::size_t i = first; i < end; ++i) // wraps modulo the type's range: uint8 counts 0 .. 255, 0 ..
      std::memcpy(at(i), &i, t.bytes);        // little-endian: the low bytes
  } else if (a.init == "iota" || a.init == "value") {
    unsigned char one[8] = {};
    if (a.init == "value") store_number_at(one, t, 0, a.value);
    for (std::size_t i = first; i < end; ++i) {
      if (a.init == "iota")
        store_number_at(at(i), t, 0, static_cast<double>(i));
      else
        std::memcpy(at(i), one, t.bytes);
    }
  } else if (t.is_float) { // float's values; doubles hold them exactly, 16-bit types round them
    for (std::size_t i = first; i < end; ++i) {
      const float v = static_cast<float>(static_cast<std::int64_t>(mix(s, i) >> 40) - (1 << 23)) * (1.0f / (1 << 23));
      if (t.bytes == 4)
        put_at(at(i), 0, v);
      else
        store_number_at(at(i), t, 0, v);
    }
  } else {
    for (std::size_t i = first; i < end; ++i) {
      const std::uint64_t r = mix(s, i);
      std::memcpy(at(i), &r, t.bytes); // the low bytes
    }
  }
}

} // namespace bb::source
