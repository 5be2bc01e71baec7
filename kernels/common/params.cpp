#include "kernels/common/params.hpp"

#include <nlohmann/json.hpp>

namespace bb::param {

bool has(const nlohmann::json& params, const char* name) { return params.contains(name); }

std::int64_t integer(const nlohmann::json& params, const char* name) { return params.at(name).get<std::int64_t>(); }

std::string text(const nlohmann::json& params, const char* name) { return params.at(name).get<std::string>(); }

std::int64_t in_range(const nlohmann::json& params, const char* name, std::int64_t lo, std::int64_t hi,
                      const char* hi_text) {
  const auto v = integer(params, name);
  if (v < lo || v > hi)
    throw unsupported_parameter(std::string(name) + " = " + std::to_string(v) + " is outside " + std::to_string(lo) +
                                ".." + (hi_text != nullptr ? std::string(hi_text) : std::to_string(hi)));
  return v;
}

std::int64_t one_of(const nlohmann::json& params, const char* name, std::initializer_list<std::int64_t> allowed) {
  const auto v = integer(params, name);
  std::string list;
  for (const auto a : allowed) {
    if (a == v) return v;
    list += (list.empty() ? "" : ", ") + std::to_string(a);
  }
  throw unsupported_parameter(std::string(name) + " = " + std::to_string(v) + " is not one of " + list);
}

std::string one_of(const nlohmann::json& params, const char* name, std::initializer_list<const char*> allowed) {
  auto v = text(params, name);
  std::string list;
  for (const char* a : allowed) {
    if (v == a) return v;
    list += (list.empty() ? "" : ", ") + std::string(a);
  }
  throw unsupported_parameter(std::string(name) + " = '" + v + "' is not one of " + list);
}

} // namespace bb::param
