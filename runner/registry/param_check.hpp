#pragma once
/// A variant's parameter check, callable on the host without a GPU: `validate` runs it on every
/// configuration so that what the GPU would refuse is refused before the run.
#include <functional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "runner/registry/registry.hpp"

namespace bb {

/// Throws unsupported_parameter where the variant's factory would.
using param_check = std::function<void(const nlohmann::json& params)>;

/// Registers the check of `variant_id` ("family/name"); a variant with an access plan needs none,
/// since its plan builder throws where its factory would.
void add_param_check(const std::string& variant_id, param_check check);

/// Runs the variant's registered check, or else builds its access plan, on `params`.
/// Throws unsupported_parameter for values the variant refuses; returns false when neither a
/// check nor a plan is registered (nothing could be checked).
bool check_parameters(const variant_info& variant, const nlohmann::json& params);

struct param_check_registrar {
  param_check_registrar(const std::string& variant_id, param_check check);
};

} // namespace bb

/// Beside BB_REGISTER_VARIANT of a variant without an access plan:
/// BB_REGISTER_PARAM_CHECK(family_info_expr, "name", [](const nlohmann::json& p) { ... }).
#define BB_REGISTER_PARAM_CHECK(FAMILY, NAME, CHECK)                                        \
  static const ::bb::param_check_registrar BB_CONCAT(bb_param_check_registrar_, __LINE__) { \
    (FAMILY).name + "/" + (NAME), (CHECK)                                                   \
  }
