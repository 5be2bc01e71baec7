#include "query/noise.hpp"

#include <algorithm>
#include <unordered_map>

#include "query/side.hpp"
#include "query/stats.hpp"

namespace bb::query {

noise_table noise_of_runs(const std::vector<store::run_info>& runs, const std::vector<store::result_row>& rows,
                          const std::vector<std::string>& metrics) {
  std::unordered_map<std::int64_t, const store::run_info*> by_id;
  for (const auto& r : runs) by_id[r.id] = &r;
  noise_table noise;
  // noise_key -> commit -> run means
  std::map<std::string, std::map<std::string, std::vector<double>>> means;
  for (const auto& row : rows) {
    const auto it = by_id.find(row.run_id);
    if (it == by_id.end() || row.status != "ok") continue;
    const store::run_info& run = *it->second;
    const bool repeatable = !run.git_commit.empty() && !run.git_dirty;
    for (const auto& metric : metrics) {
      const auto m = row.metrics.find(metric);
      if (m == row.metrics.end()) continue;
      const std::string key = noise_key(row, metric);
      const double launches = relative_spread(m->second.min, m->second.max, m->second.mean);
      if (launches > 0) noise[key] = std::max(noise[key], launches);
      if (repeatable) means[key][run.git_commit].push_back(m->second.mean);
    }
  }
  for (const auto& [key, by_commit] : means)
    for (const auto& [commit, values] : by_commit)
      if (const double spread = relative_spread(values); spread > 0) noise[key] = std::max(noise[key], spread);
  return noise;
}

noise_table learn_noise(const store::database& db, const std::set<std::pair<std::string, std::string>>& scope,
                        const std::set<std::int64_t>& exclude, const std::vector<std::string>& metrics,
                        std::size_t max_runs) {
  const auto all = store::run_infos(db);
  std::map<std::pair<std::string, std::string>, std::size_t> taken;
  std::vector<store::run_info> history;
  for (auto it = all.rbegin(); it != all.rend(); ++it) { // newest first
    const std::pair<std::string, std::string> key{it->experiment_name, it->arch};
    if (scope.count(key) == 0 || exclude.count(it->id) > 0) continue;
    if (taken[key]++ >= max_runs) continue;
    history.push_back(*it);
  }
  std::vector<std::int64_t> ids;
  for (const auto& r : history) ids.push_back(r.id);
  const auto rows = store::read_results(db, ids, {metrics, false});
  return noise_of_runs(history, rows, metrics);
}

} // namespace bb::query
