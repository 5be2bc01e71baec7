#pragma once
/// `bankbench regress`: a candidate's results against a baseline's. Counters are matched on
/// experiment, variant, parameters, metric and architecture, and a change counts when it is
/// beyond both the measured noise and a floor (0.5 %). Times are judged by a Mann-Whitney U test
/// on the samples plus a minimum effect (5 %) and gate only when asked. Results of different
/// architectures are compared and reported, never gated.
#include <optional>
#include <string>
#include <vector>

#include "query/noise.hpp"
#include "query/side.hpp"

namespace bb::query {

struct regress_options {
  std::vector<std::string> metrics; ///< counters to judge; empty: default_regress_metrics()
  double min_change = 0.005;        ///< the allowance's floor, relative
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
  double allowance = 0;                          ///< counters: the noise allowance; times: the minimum effect
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
  int compared_across = 0;        ///< pairs on different architectures
  int times_compared = 0;         ///< pairs with samples on both sides
  regress_options options;

  /// Findings that gate: a regression, the verdict, exit code 1.
  [[nodiscard]] std::size_t gated() const;
};

/// Compares `candidate` with `baseline`; `history` holds the noise learned from repeated runs.
regress_result regress(const side& baseline, const side& candidate, const noise_table& history,
                       const regress_options& options);

} // namespace bb::query
