#pragma once
/// How much a counter moves between repeated runs of unchanged code: regress's allowance is at
/// least this, so that noise alone never reads as a regression.
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "runner/store/database.hpp"
#include "runner/store/results.hpp"

namespace bb::query {

/// By noise_key(): the relative spread learned for one configuration, architecture and metric.
using noise_table = std::map<std::string, double>;
/// By noise_key(): how many runs of the same code the run-to-run part of the noise came from.
using repeat_table = std::map<std::string, int>;

/// What makes runs repeats of one another: the same commit, clean, and the same fingerprint
/// (sources built in, experiment file, backend and measuring options). Runs of a dirty tree are
/// repeats only of runs with their own fingerprint and never of a clean commit's; runs written
/// before fingerprints were recorded pool by clean commit and experiment text. "" for a run that
/// is no one's repeat (no commit and no fingerprint).
std::string repeat_group(const store::run_info& run);

/// For each configuration, architecture and metric, the largest relative spread (max - min over
/// the mean) of repeated measurements: the launches of any one run, and the run means of runs
/// in one repeat_group().
noise_table noise_of_runs(const std::vector<store::run_info>& runs, const std::vector<store::result_row>& rows,
                          const std::vector<std::string>& metrics, repeat_table* repeats = nullptr);

/// noise_of_runs() over the database's history: the newest `max_runs` runs of each experiment and
/// architecture in `scope`, leaving out `exclude` (the candidate, so that a regression cannot
/// widen its own allowance).
noise_table learn_noise(const store::database& db, const std::set<std::pair<std::string, std::string>>& scope,
                        const std::set<std::int64_t>& exclude, const std::vector<std::string>& metrics,
                        std::size_t max_runs = 50, repeat_table* repeats = nullptr);

} // namespace bb::query
