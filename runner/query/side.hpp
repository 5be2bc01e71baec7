#pragma once
/// One side of a comparison: configurations from runs of the database or from a named baseline,
/// with the labels the results commands print for it.
#include <map>
#include <string>
#include <vector>

#include "runner/store/results.hpp"

namespace bb::query {

struct side {
  std::string label;                 ///< short, for column headings: "run 12", "baseline main", "commit 0a1b2c3d4e5f"
  std::string description;           ///< one line for a header: what, where, which commit
  std::vector<store::run_info> runs; ///< the runs the rows come from; a baseline keeps its own record
  std::vector<store::result_row> rows;
  std::map<std::string, double> stored_noise; ///< a baseline's noise when it was saved, by noise_key()
  bool is_baseline = false;
};

/// The JSON object in canonical form (keys sorted, compact), so that parameters written by any
/// bankbench compare equal; text that is not JSON is returned as it is.
std::string canonical_params(const std::string& params_json);

/// What identifies a configuration across runs: experiment, variant and parameters.
std::string configuration_key(const store::result_row& row);

/// configuration_key() plus the architecture and the metric: what noise is learned for.
std::string noise_key(const store::result_row& row, const std::string& metric);

/// "run 12: transpose on NVIDIA H200 (sm_90), commit 0a1b2c3d4e5f-dirty, fingerprint 9f8e7d6c5b4a, session 3,
/// 2026-11-21T08:30:12.123Z"
std::string describe_run(const store::run_info& run);

/// The first twelve hex digits of the run's fingerprint; "-" when unknown.
std::string short_fingerprint(const store::run_info& run);

/// Twelve hex digits, "-dirty" appended for a dirty tree; "-" when unknown.
std::string short_commit(const store::run_info& run);

/// A side holding `runs` of the database and the rows read for them.
side side_of_runs(std::string label, const std::vector<store::run_info>& runs, std::vector<store::result_row> rows);

} // namespace bb::query
