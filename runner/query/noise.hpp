#pragma once
/// How much a counter moves between repeated runs of unchanged code: regress's allowance is at
/// least this, so that noise alone never reads as a regression.
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "store/database.hpp"
#include "store/results.hpp"

namespace bb::query {

/// By noise_key(): the relative spread learned for one configuration, architecture and metric.
using noise_table = std::map<std::string, double>;

/// For each configuration, architecture and metric, the largest relative spread (max - min over
/// the mean) of repeated measurements: the launches of any one run, and the run means of runs
/// at one clean commit (runs without a commit or with local changes are left out of those, as
/// their code may differ).
noise_table noise_of_runs(const std::vector<store::run_info>& runs, const std::vector<store::result_row>& rows,
                          const std::vector<std::string>& metrics);

/// noise_of_runs() over the database's history: the newest `max_runs` runs of each experiment and
/// architecture in `scope`, leaving out `exclude` (the candidate, so that a regression cannot
/// widen its own allowance).
noise_table learn_noise(const store::database& db, const std::set<std::pair<std::string, std::string>>& scope,
                        const std::set<std::int64_t>& exclude, const std::vector<std::string>& metrics,
                        std::size_t max_runs = 50);

} // namespace bb::query
