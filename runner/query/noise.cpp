#include "runner/query/noise.hpp"

#include <algorithm>
#include <unordered_map>

#include "runner/query/side.hpp"
#include "runner/query/stats.hpp"

namespace bb::query {

std::string repeat_group(const store::run_info& run) {
  if (!run.fingerprint.empty())
    return "fingerprint " + run.fingerprint + (run.git_dirty ? " dirty " : " clean ") + run.git_commit;
  if (run.git_commit.empty() || run.git_dirty) return "";
  return "commit " + run.git_commit + " experiment " + run.experiment_sha256;
}

noise_table noise_of_runs(const std::vector<store::run_info>& runs, const std::vector<store::result_row>& rows,
                          const std::vector<std::string>& metrics, repeat_table* repeats) {
  std::unordered_map<std::int64_t, const store::run_info*> by_id;
  for (const auto& r : runs) by_id[r.id] = &r;
  noise_table noise;
  // noise_key -> repeat group -> run means
  std::map<std::string, std::map<std::string, std::vector<double>>> means;
  for (const auto& row : rows) {
    const auto it = by_id.find(row.run_id);
    if (it == by_id.end() || row.status != config_status::ok) continue;
    const store::run_info& run = *it->second;
    const std::string group = repeat_group(run);
    for (const auto& metric : metrics) {
      const auto m = row.metrics.find(metric);
      if (m == row.metrics.end()) continue;
      const std::string key = noise_key(row, metric);
      const double launches = relative_spread(m->second.min, m->second.max, m->second.mean);
      if (launches > 0) noise[key] = std::max(noise[key], launches);
      if (!group.empty()) means[key][group].push_back(m->second.mean);
    }
  }
  for (const auto& [key, by_group] : means)
    for (const auto& [group, values] : by_group) {
      if (const double spread = relative_spread(values); spread > 0) noise[key] = std::max(noise[key], spread);
      if (repeats != nullptr && values.size() > 1) {
        int& n = (*repeats)[key];
        n = std::max(n, static_cast<int>(values.size()));
      }
    }
  return noise;
}

noise_table learn_noise(const store::database& db, const std::set<std::pair<std::string, std::string>>& scope,
                        const std::set<std::int64_t>& exclude, const std::vector<std::string>& metrics,
                        std::size_t max_runs, repeat_table* repeats) {
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
  return noise_of_runs(history, rows, metrics, repeats);
}

} // namespace bb::query
