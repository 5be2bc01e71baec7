#include "runner/session/model_backend.hpp"

#include <chrono>
#include <exception>
#include <variant>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "runner/common/backend.hpp"
#include "runner/common/error.hpp"
#include "runner/common/path_text.hpp"
#include "runner/model/rules.hpp"
#include "runner/query/lines.hpp"
#include "runner/registry/param_check.hpp"
#include "runner/source/compile.hpp"
#include "runner/source/emulate.hpp"

namespace bb::build {
extern const char sources_sha256[];
}

namespace bb::session {

store::gpu_record model_gpu_record() {
  store::gpu_record g;
  g.uuid = "model-rules-" + std::to_string(model::k_rules_version);
  g.name = "bank model"; // short, as tables print it on every line; the rules are its "chip"
  g.chip = model::k_rules_summary;
  g.backend = name_of(backend::model);
  return g; // cc 0.0, no memory, no clocks: nothing here is a device
}

namespace {

/// How a prediction from code says where it came from: its reason (unverified rows, and every row
/// of a built-in variant) and its lines' note.
struct code_origin {
  std::string reason = "predicted from its PTX";
  std::string lines = "predicted from the PTX";
  bool said_when_ok = false; ///< an ok row's reason says it too
};

/// Source variant `v` of `code` emulated at `params`, its counters named as `exp` collects them.
launch::config_result emulated_configuration(const config::experiment& exp, const config::experiment& code,
                                             const config::source_variant& v, const nlohmann::json& params,
                                             std::uint64_t budget, store::line_collection* lines,
                                             const code_origin& origin) {
  launch::config_result r;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    source::emulation_options o;
    if (budget > 0) o.budget = budget;
    o.ptx_only = true; // as compile_for_model compiled it: the model needs no cubin
    // Every source built into this bankbench: a change to the interpreter, the rules or anything
    // else that could change a prediction makes every cached one a miss.
    o.cache_version = std::string("sources ") + build::sources_sha256;
    source::emulation em = source::emulate(code, v, params, exp.seed, source::default_cache_dir(), o);
    r.smem_access_bytes = em.smem_access_bytes;
    r.compile_key = em.compile_key;
    r.compile_ms = em.compile_ms;
    r.compiler = em.compiler;
    r.compile_options = em.compile_options;
    auto counters = model::predicted_counters(em.prediction, exp.metrics.names());
    if (!counters.empty()) r.ranges.push_back(std::move(counters));
    if (!em.checked) {
      r.unverified = true;
      r.reason = origin.reason + "; outputs not checked: " + em.unchecked;
    } else {
      r.verify = em.verify;
      if (origin.said_when_ok) r.reason = origin.reason + "; outputs checked";
      if (em.verify.mismatches > 0) {
        r.status = config_status::wrong_result;
        r.reason = "the emulated kernel's outputs differ from the check: " + std::to_string(em.verify.mismatches) +
                   " of " + std::to_string(em.verify.checked) + " elements wrong; first: " + em.verify.first_mismatch;
        if (origin.said_when_ok) r.reason = origin.reason + "; " + r.reason;
      }
    }
    if (lines != nullptr) {
      *lines = std::move(em.lines);
      const auto text_of = query::source_reader();
      for (auto& row : lines->rows)
        if (!row.file.empty()) row.source = text_of(row.file, row.line);
      const std::string how =
          em.blocks_run == em.blocks ? fmt::format("{}: all {} blocks run", origin.lines, em.blocks)
          : em.blocks_alike
              ? fmt::format("{}: 1 of {} blocks run (the PTX shows every block makes the same shared-memory "
                            "requests), counts times {}",
                            origin.lines, em.blocks, em.blocks)
              : fmt::format("{}: {} of {} blocks run (they agree), counts scaled to all", origin.lines, em.blocks_run,
                            em.blocks);
      lines->note = lines->note.empty() ? how : lines->note + "; " + how;
    }
  } catch (const source::not_modelled& e) {
    r.status = config_status::not_modelled;
    r.reason = e.what();
  } catch (const unsupported_parameter& e) {
    r.status = config_status::unsupported;
    r.reason = e.what();
  } catch (const error& e) { // a kernel that does not compile, arguments that do not fit it
    r.status = config_status::failed;
    r.reason = e.what();
  }
  r.counter_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

/// A built-in configuration predicted from its access plan after all, its reason saying why not
/// from its code (the first line of `why`).
launch::config_result plan_instead(const config::experiment& exp, const config::configuration& cfg,
                                   const variant_info& variant, std::string why) {
  if (const auto eol = why.find('\n'); eol != std::string::npos) why.resize(eol);
  auto r = predict_configuration(exp, cfg, variant);
  const std::string note = "not from its code: " + why;
  if (r.status == config_status::ok)
    r.reason = "predicted from its access plan, " + note;
  else if (r.status == config_status::not_modelled)
    r.reason += "; " + note;
  return r;
}

} // namespace

launch::config_result predict_configuration(const config::experiment& exp, const config::configuration& cfg,
                                            const variant_info& variant, std::uint64_t budget,
                                            store::line_collection* lines) {
  if (const config::source_variant* v = exp.find_source(variant.name); v != nullptr && variant.family == exp.family)
    return emulated_configuration(exp, exp, *v, cfg.params, budget, lines, code_origin{});
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

launch::config_result predict_from_code(const config::experiment& exp, const config::configuration& cfg,
                                        const variant_info& variant, code_twins& twins, std::uint64_t budget,
                                        store::line_collection* lines) {
  if (variant.family != exp.family || exp.find_source(variant.name) != nullptr)
    return predict_configuration(exp, cfg, variant, budget, lines); // a source variant: from its code already
  launch::config_result refused;
  try { // what the GPU would refuse is refused before anything is compiled
    check_parameters(variant, cfg.params);
  } catch (const unsupported_parameter& e) {
    refused.status = config_status::unsupported;
    refused.reason = e.what();
    return refused;
  }
  auto found = twins.find(exp, cfg);
  if (const auto* why = std::get_if<std::string>(&found)) return plan_instead(exp, cfg, variant, *why);
  const auto& t = std::get<twin_configuration>(found);
  code_origin origin;
  const std::string twin = shown_path(relative_to_working_folder(t.twin->path));
  origin.reason = fmt::format("predicted from its code (the PTX of {} of code twin {})", t.variant->name, twin);
  origin.lines = fmt::format("predicted from the PTX of {} of code twin {}", t.variant->name, twin);
  origin.said_when_ok = true;
  store::line_collection code_lines;
  auto r = emulated_configuration(exp, *t.twin, *t.variant, t.params, budget, &code_lines, origin);
  // Code the interpreter cannot follow, or that does not compile: the plan, never a guess.
  if (r.status == config_status::not_modelled || r.status == config_status::failed)
    return plan_instead(exp, cfg, variant, r.reason);
  if (lines != nullptr) *lines = std::move(code_lines);
  // The ideal wavefronts are measured against the bytes a lane moves per access, which the family
  // declares with its plan (8 for double, 16 for float4); the twin's file holds one width for all.
  if (variant.plan) {
    try {
      r.smem_access_bytes = variant.plan(cfg.params).access_bytes;
    } catch (const std::exception&) { // the plan refuses what the code took: the twin's width stays
    }
  }
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

std::optional<model::prediction> predict_source_variant(const config::experiment& exp, const config::source_variant& v,
                                                        const nlohmann::json& params) {
  try {
    source::emulation_options o;
    o.budget = source::k_beside_measured_budget;
    o.check = false;
    return source::emulate(exp, v, params, exp.seed, source::default_cache_dir(), o).prediction;
  } catch (const std::exception& e) {
    spdlog::debug("{}/{}: no prediction beside the measurement: {}", exp.name, v.name, e.what());
    return std::nullopt;
  }
}

} // namespace bb::session
