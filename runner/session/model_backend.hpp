#pragma once
/// `bankbench run --backend model`: predicted counters from each variant's access plan, stored
/// under a GPU entry whose backend is "model", so that show and compare put them beside measured runs.
#include <map>
#include <optional>
#include <string>

#include "runner/config/experiment.hpp"
#include "runner/launch/executor.hpp"
#include "runner/model/predict.hpp"
#include "runner/registry/registry.hpp"
#include "runner/store/records.hpp"

namespace bb::session {

/// The GPU entry model runs are stored under (backend "model"; the name says which rules).
store::gpu_record model_gpu_record();

/// Predicted raw counters (requests, wavefronts, conflicts for loads and stores) of one
/// configuration, as one range; status not_modelled when the variant has no access plan, and
/// unsupported where the parameters do not fit it.
launch::config_result predict_configuration(const config::experiment& exp, const config::configuration& cfg,
                                            const variant_info& variant);

/// The model's prediction for `variant` at `params`; nullopt when the variant has no plan or its
/// plan refuses the parameters.
std::optional<model::prediction> predict_variant(const variant_info& variant, const nlohmann::json& params);

} // namespace bb::session
