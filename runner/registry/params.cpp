#include "runner/registry/params.hpp"

#include <fmt/format.h>

#include "runner/common/error.hpp"

namespace bb {

namespace {

const char* kind_of(const nlohmann::json& v) {
  if (v.is_number_integer()) return "an integer";
  if (v.is_number()) return "a number";
  if (v.is_boolean()) return "true or false";
  return "text";
}

bool same_kind(const nlohmann::json& def, const nlohmann::json& value) {
  if (def.is_number_integer()) return value.is_number_integer();
  if (def.is_number()) return value.is_number();
  if (def.is_boolean()) return value.is_boolean();
  if (def.is_string()) return value.is_string();
  return true;
}

} // namespace

nlohmann::json params_over_defaults(const family_info& family, const std::vector<std::string>& given) {
  nlohmann::json params = nlohmann::json::object();
  for (const auto& p : family.params) params[p.name] = p.default_value;
  for (const auto& kv : given) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
      throw usage_error("--params takes NAME=VALUE, e.g. n=1024; got '" + kv + "'");
    const std::string name = kv.substr(0, eq), text = kv.substr(eq + 1);
    if (!params.contains(name))
      throw usage_error("family " + family.name + " has no parameter '" + name +
                        "' (`bankbench list families` names them)");
    auto value = nlohmann::json::parse(text, nullptr, false);
    if (value.is_discarded()) value = nlohmann::json(text);
    // The value must be of the default's kind: n=abc reaching a plan would throw deep inside it.
    const auto& def = params[name];
    if (!same_kind(def, value))
      throw usage_error(fmt::format("--params {}: '{}' takes {} (its default is {}); got '{}'", kv, name, kind_of(def),
                                    def.dump(), text));
    params[name] = value;
  }
  return params;
}

} // namespace bb
