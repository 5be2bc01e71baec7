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
#include "runner/session/code_twins.hpp"
#include "runner/store/lines.hpp"
#include "runner/store/records.hpp"

namespace bb::session {

/// The GPU entry model runs are stored under (backend "model"; the name says which rules).
store::gpu_record model_gpu_record();

/// Predicted raw counters (requests, wavefronts, conflicts for loads and stores) of one
/// configuration, as one range: from the variant's access plan, or for a source variant from its
/// kernel's PTX (source/emulate.hpp), whose outputs are checked and whose per-line prediction goes
/// to `lines` (when given). Status not_modelled when the variant has no plan or the emulation
/// cannot follow its code (the reason says where), unsupported where the parameters do not fit.
/// `budget`: emulate.hpp's, 0 for its default.
launch::config_result predict_configuration(const config::experiment& exp, const config::configuration& cfg,
                                            const variant_info& variant, std::uint64_t budget = 0,
                                            store::line_collection* lines = nullptr);

/// As predict_configuration, a built-in variant from its family's own kernel code
/// (`--model-source code`): its code twin's variant of the same name emulated at the configuration's
/// values (code_twins.hpp), counters and per-line rows (to `lines`) from its PTX, the reason saying
/// so. Where there is no twin, or its code cannot be followed or compiled, the access plan predicts
/// it and the reason says why not the code; not_modelled where there is no plan either. A source
/// variant is predicted as predict_configuration does.
launch::config_result predict_from_code(const config::experiment& exp, const config::configuration& cfg,
                                        const variant_info& variant, code_twins& twins, std::uint64_t budget = 0,
                                        store::line_collection* lines = nullptr);

/// The model's prediction for `variant` at `params`; nullopt when the variant has no plan or its
/// plan refuses the parameters.
std::optional<model::prediction> predict_variant(const variant_info& variant, const nlohmann::json& params);

/// The model's prediction for source variant `v` at `params` from its PTX, within
/// source::k_beside_measured_budget and without checking outputs; nullopt where it cannot be had
/// (the model run, `--backend model`, says why).
std::optional<model::prediction> predict_source_variant(const config::experiment& exp, const config::source_variant& v,
                                                        const nlohmann::json& params);

} // namespace bb::session
