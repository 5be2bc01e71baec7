#pragma once
/// `bankbench regress`: a candidate's results against a baseline's. Counters are matched on
/// experiment, variant, parameters, metric and architecture. A counter's change counts when it is
/// larger than its minimum effect: an absolute one in wavefronts per request (0.05 by default;
/// for a count, that many per request of its kind) and a relative one (1 %), whichever is larger.
/// Noise learned from three or more repeated runs of the same code may tighten the relative part
/// to a multiple of the noise, never below the absolute part and never above the minimum effect,
/// so noise never widens the gate and one baseline run is enough. docs/regression-gate.md gives the
/// reasoning. Times are judged by a Mann-Whitney U test on the samples plus a minimum effect
/// (5 %) and gate only when asked. Results of different architectures are reported, never gated.
#include <optional>
#include <string>
#include <vector>

#include "runner/query/noise.hpp"
#include "runner/query/side.hpp"

namespace bb::query {

struct regress_options {
  std::vector<std::string> metrics; ///< counters to judge; empty: regress_metrics_of() the candidate
  double min_effect = 0.05;         ///< the smallest change that counts, in wavefronts (or conflicts) per request
  double min_change = 0.01;         ///< the smallest change that counts, relative to the baseline
  double noise_factor = 4;          ///< learned noise tightens the allowance to this many times the noise
  int noise_repeats = 3;            ///< ... when learned from at least this many runs of the same code
  double min_time_effect = 0.05;    ///< a time change smaller than this never counts
  double alpha = 0.05;              ///< significance of the rank test on the samples
  bool gate_time = false;           ///< time regressions make the verdict a regression
};

enum class outcome {
  regression,  ///< worse beyond the allowance
  improvement, ///< better beyond the allowance
  changed,     ///< beyond the allowance in a metric that is neither better nor worse (requests)
};

/// One comparison that found a difference.
struct finding {
  std::string experiment, variant, params_json;
  std::string metric; ///< a metric name, "median_ns" for times, "status" for a configuration that stopped working
  std::string baseline_arch, candidate_arch;
  std::optional<double> baseline, candidate;     ///< means over launches; medians for times
  std::optional<double> change;                  ///< (candidate - baseline) / |baseline|; empty from 0
  double allowance = 0;                          ///< counters: in the metric's unit; times: the relative minimum effect
  std::optional<double> p;                       ///< times: the rank test's p value
  std::string baseline_status, candidate_status; ///< "status" findings
  outcome result = outcome::changed;
  bool gated = false;      ///< counts towards exit code 1
  bool cross_arch = false; ///< different architectures: reported only
};

/// A configuration on one side only.
struct unmatched {
  std::string experiment, variant, params_json, arch;
};

struct regress_result {
  std::string baseline_label, baseline_description, candidate_label, candidate_description;
  std::vector<std::string> metrics;
  std::vector<finding> findings;  ///< in the candidate's order
  std::vector<unmatched> missing; ///< in the baseline, not the candidate
  std::vector<unmatched> added;   ///< in the candidate, not the baseline
  int compared = 0;               ///< configuration pairs on the same architecture
  int judged = 0;                 ///< (pair, metric) judgements made: 0 means nothing was judged
  int compared_across = 0;        ///< pairs on different architectures
  int times_compared = 0;         ///< pairs with samples on both sides
  regress_options options;

  /// Findings that gate: a regression, the verdict, exit code 1.
  [[nodiscard]] std::size_t gated() const;
};

/// Compares `candidate` with `baseline`; `history` holds the noise learned from repeated runs and
/// `repeats` how many runs of the same code each noise entry was learned from.
regress_result regress(const side& baseline, const side& candidate, const noise_table& history,
                       const regress_options& options, const repeat_table& repeats = {});

/// The metrics the gate judges by default: every access kind's wavefronts per request and
/// requests that `rows` hold (load_..., store_..., and any other kind), in a stable order.
std::vector<std::string> regress_metrics_of(const std::vector<store::result_row>& rows);

/// The absolute part of the minimum effect: `min_effect` for a per-request metric, that many per
/// request of its kind for a count, 0 for anything else.
double absolute_effect(const std::string& metric, const store::result_row& b, const regress_options& options);

/// The smallest change of `metric` that counts at `baseline` for row `b` (see the file comment).
double minimum_effect(const std::string& metric, double baseline, const store::result_row& b,
                      const regress_options& options);

} // namespace bb::query
