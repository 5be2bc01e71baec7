#pragma once
// A family's parameter checks in one wording: the value, or unsupported_parameter saying what the
// value is and what the family takes ("batch = 0 is outside 1..65536", "matrices = 3 is not one of
// 1, 2, 4"). Host code: checked_config() and the access plans call these.
#include <cstdint>
#include <initializer_list>
#include <string>

#include <nlohmann/json.hpp>

#include "runner/registry/registry.hpp"

namespace bb::param {

/// params[name] as an integer within lo..hi; `hi_text` names the upper bound where a power says
/// it better than the digits ("2^28").
inline std::int64_t in_range(const nlohmann::json& params, const char* name, std::int64_t lo, std::int64_t hi,
                             const char* hi_text = nullptr) {
  const auto v = params.at(name).get<std::int64_t>();
  if (v < lo || v > hi)
    throw unsupported_parameter(std::string(name) + " = " + std::to_string(v) + " is outside " + std::to_string(lo) +
                                ".." + (hi_text != nullptr ? std::string(hi_text) : std::to_string(hi)));
  return v;
}

/// params[name] as an integer that is one of `allowed`.
inline std::int64_t one_of(const nlohmann::json& params, const char* name,
                           std::initializer_list<std::int64_t> allowed) {
  const auto v = params.at(name).get<std::int64_t>();
  std::string list;
  for (const auto a : allowed) {
    if (a == v) return v;
    list += (list.empty() ? "" : ", ") + std::to_string(a);
  }
  throw unsupported_parameter(std::string(name) + " = " + std::to_string(v) + " is not one of " + list);
}

/// params[name] as text that is one of `allowed`.
inline std::string one_of(const nlohmann::json& params, const char* name, std::initializer_list<const char*> allowed) {
  auto v = params.at(name).get<std::string>();
  std::string list;
  for (const char* a : allowed) {
    if (v == a) return v;
    list += (list.empty() ? "" : ", ") + std::string(a);
  }
  throw unsupported_parameter(std::string(name) + " = '" + v + "' is not one of " + list);
}

} // namespace bb::param
