#include "runner/registry/param_check.hpp"

#include <map>

namespace bb {

namespace {
std::map<std::string, param_check>& checks() {
  static std::map<std::string, param_check> m;
  return m;
}
} // namespace

void add_param_check(const std::string& variant_id, param_check check) { checks()[variant_id] = std::move(check); }

bool check_parameters(const variant_info& variant, const nlohmann::json& params) {
  if (const auto it = checks().find(variant.id()); it != checks().end()) {
    it->second(params);
    return true;
  }
  if (!variant.plan) return false;
  try {
    (void)variant.plan(params);
  } catch (const unsupported_parameter&) {
    throw;
  } catch (const std::exception&) { // a plan that breaks the model's rules: the model run says so
  }
  return true;
}

param_check_registrar::param_check_registrar(const std::string& variant_id, param_check check) {
  add_param_check(variant_id, std::move(check));
}

} // namespace bb
