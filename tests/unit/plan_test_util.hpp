#pragma once
// Host-side helpers for the kernel families' host tests: a variant's access plan, built from the
// kernel's own index functions, evaluated by the bank model. No GPU needed (registration and plans
// make no CUDA call), so these tests never call BB_REQUIRE_GPU.
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "runner/model/predict.hpp"
#include "runner/registry/registry.hpp"

namespace bb::test {

/// The family's default parameters with `overrides` applied on top.
inline nlohmann::json params_of(const std::string& family, const nlohmann::json& overrides = nlohmann::json::object()) {
  nlohmann::json p = nlohmann::json::object();
  const auto* f = registry::instance().find_family(family);
  EXPECT_NE(f, nullptr) << family;
  if (f != nullptr)
    for (const auto& s : f->params) p[s.name] = s.default_value;
  for (const auto& [k, v] : overrides.items()) p[k] = v;
  return p;
}

// string_view parameters: a reference returned from string temporaries reads as dangling to gcc 13.
inline const variant_info& variant_of(std::string_view family, std::string_view name) {
  const auto* v = registry::instance().find_variant(std::string(family), std::string(name));
  if (v == nullptr) throw std::runtime_error(std::string(family) + "/" + std::string(name) + " is not registered");
  return *v;
}

inline model::access_plan plan_of(const std::string& family, const std::string& variant,
                                  const nlohmann::json& overrides = nlohmann::json::object()) {
  const auto& v = variant_of(family, variant);
  if (!v.plan) throw std::runtime_error(v.id() + " has no access plan");
  return v.plan(params_of(family, overrides));
}

inline model::prediction predict_of(const std::string& family, const std::string& variant,
                                    const nlohmann::json& overrides = nlohmann::json::object()) {
  return model::predict(plan_of(family, variant, overrides));
}

inline double per_request(const model::side_totals& s) {
  return s.requests == 0 ? -1.0 : static_cast<double>(s.wavefronts) / static_cast<double>(s.requests);
}
inline double conflicts_per_request(const model::side_totals& s) {
  return s.requests == 0 ? -1.0 : static_cast<double>(s.conflicts) / static_cast<double>(s.requests);
}

} // namespace bb::test
