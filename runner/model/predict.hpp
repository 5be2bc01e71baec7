#pragma once
/// A whole launch's predicted counters, from its access plan.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runner/model/access_plan.hpp"
#include "runner/model/evaluate.hpp"

namespace bb::model {

/// Totals for one direction (loads or stores).
struct side_totals {
  std::uint64_t requests = 0, wavefronts = 0, ideal_wavefronts = 0, conflicts = 0;
};

struct prediction {
  /// load: LDS + ldmatrix, store: STS + stmatrix, as the hardware op_ld/op_st counters (and
  /// load_requests, which adds LDSM instructions) see them.
  side_totals load, store;
  /// Per access kind: "lds", "ldsm", "sts", "stsm", "atom", "ldgsts", "gmma" (only kinds the plan has).
  std::map<std::string, side_totals> kinds;
};

/// The derived-metric prefix of an access kind ("lds" for access_kind::load).
const char* kind_name(access_kind k);

/// Sums evaluate() over the plan, each entry weighted by its count.
prediction predict(const access_plan& plan);

/// Adds `count` requests of kind `k` that each cost `c` (evaluate()'s result) to `p`, as predict()
/// adds a plan's entries; `continues`: wavefronts only (plan_entry::continues).
void add_cost(prediction& p, access_kind k, std::uint64_t count, const access_cost& c, bool continues = false);

/// Every total of `p` times `factor`.
void scale(prediction& p, std::uint64_t factor);

/// The raw CUPTI metric values (metrics::k_ld_requests ...) the prediction stands for, limited
/// to the names in `wanted`; gpu__time_duration is never predicted.
std::map<std::string, double> predicted_counters(const prediction& p, const std::vector<std::string>& wanted);

/// Extra rows stored next to measured ones: predicted_load_requests,
/// predicted_load_wavefronts_per_request, ... (per-request values only where requests > 0).
std::map<std::string, double> predicted_metric_rows(const prediction& p);

} // namespace bb::model
