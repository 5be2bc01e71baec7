#include "runner/session/model_backend.hpp"

#include <chrono>
#include <exception>

#include "runner/common/backend.hpp"
#include "runner/model/rules.hpp"
#include "runner/registry/param_check.hpp"

namespace bb::session {

store::gpu_record model_gpu_record() {
  store::gpu_record g;
  g.uuid = "model-rules-" + std::to_string(model::k_rules_version);
  g.name = "bank model"; // short, as tables print it on every line; the rules are its "chip"
  g.chip = model::k_rules_summary;
  g.backend = name_of(backend::model);
  return g; // cc 0.0, no memory, no clocks: nothing here is a device
}

launch::config_result predict_configuration(const config::experiment& exp, const config::configuration& cfg,
                                            const variant_info& variant) {
  launch::config_result r;
  if (!variant.plan) {
    try { // parameters the GPU would refuse are unsupported here too
      check_parameters(variant, cfg.params);
      r.status = config_status::not_modelled;
      r.reason = variant.id() + " has no access plan: measure it on a GPU";
    } catch (const unsupported_parameter& e) {
      r.status = config_status::unsupported;
      r.reason = e.what();
    }
    return r;
  }
  const auto t0 = std::chrono::steady_clock::now();
  try {
    const auto plan = variant.plan(cfg.params);
    r.smem_access_bytes = plan.access_bytes;
    auto counters = model::predicted_counters(model::predict(plan), exp.metrics.names());
    if (!counters.empty()) r.ranges.push_back(std::move(counters)); // e.g. `metrics: duration`
  } catch (const unsupported_parameter& e) {
    r.status = config_status::unsupported;
    r.reason = e.what();
  } catch (const std::exception& e) { // a plan that breaks the rules (bad width, misaligned lane)
    r.status = config_status::failed;
    r.reason = variant.id() + ": access plan: " + e.what();
  }
  r.counter_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

std::optional<model::prediction> predict_variant(const variant_info& variant, const nlohmann::json& params) {
  if (!variant.plan) return std::nullopt;
  try {
    return model::predict(variant.plan(params));
  } catch (const std::exception&) { // the measured row says why the parameters do not work
    return std::nullopt;
  }
}

} // namespace bb::session
