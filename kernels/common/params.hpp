#pragma once
// A family's parameter checks in one wording: the value, or unsupported_parameter saying what the
// value is and what the family takes ("batch = 0 is outside 1..65536", "matrices = 3 is not one of
// 1, 2, 4"). Host code: checked_config() and the access plans call these. They read the JSON in
// params.cpp, so a kernel's file compiles without <nlohmann/json.hpp> (only forward-declared here).
#include <cstdint>
#include <initializer_list>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "runner/registry/registry.hpp"

namespace bb::param {

/// Whether params has `name`.
bool has(const nlohmann::json& params, const char* name);

/// params[name] as an integer, unchecked (params.at(name).get<std::int64_t>(), and its exceptions).
std::int64_t integer(const nlohmann::json& params, const char* name);

/// params[name] as text, unchecked (params.at(name).get<std::string>(), and its exceptions).
std::string text(const nlohmann::json& params, const char* name);

/// params[name] as an integer within lo..hi; `hi_text` names the upper bound where a power says
/// it better than the digits ("2^28").
std::int64_t in_range(const nlohmann::json& params, const char* name, std::int64_t lo, std::int64_t hi,
                      const char* hi_text = nullptr);

/// params[name] as an integer that is one of `allowed`.
std::int64_t one_of(const nlohmann::json& params, const char* name, std::initializer_list<std::int64_t> allowed);

/// params[name] as text that is one of `allowed`.
std::string one_of(const nlohmann::json& params, const char* name, std::initializer_list<const char*> allowed);

} // namespace bb::param
