#include "runner/query/side.hpp"

#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

namespace bb::query {

namespace {
constexpr char k_sep = '\x1f';
}

std::string canonical_params(const std::string& params_json) {
  const auto params = nlohmann::json::parse(params_json, nullptr, false);
  if (params.is_discarded()) return params_json;
  return params.dump(); // nlohmann keeps object keys sorted
}

std::string configuration_key(const store::result_row& row) {
  return row.experiment + k_sep + row.variant + k_sep + canonical_params(row.params_json);
}

std::string noise_key(const store::result_row& row, const std::string& metric) {
  return configuration_key(row) + k_sep + row.arch + k_sep + metric;
}

std::string short_commit(const store::run_info& run) {
  if (run.git_commit.empty()) return "-";
  return run.git_commit.substr(0, 12) + (run.git_dirty ? "-dirty" : "");
}

std::string short_fingerprint(const store::run_info& run) {
  return run.fingerprint.empty() ? "-" : run.fingerprint.substr(0, 12);
}

std::string describe_run(const store::run_info& run) {
  std::string s = fmt::format("run {}: {} on {} ({}), commit {}", run.id, run.experiment_name, run.gpu_name, run.arch,
                              short_commit(run));
  if (!run.fingerprint.empty()) s += ", fingerprint " + short_fingerprint(run);
  if (run.session_id != 0) s += fmt::format(", session {}", run.session_id);
  return s + ", " + run.started_at;
}

side side_of_runs(std::string label, const std::vector<store::run_info>& runs, std::vector<store::result_row> rows) {
  side s;
  s.label = std::move(label);
  s.runs = runs;
  s.rows = std::move(rows);
  if (runs.size() == 1) {
    s.description = describe_run(runs.front());
    return s;
  }
  std::set<std::string> experiments, gpus, commits;
  std::set<std::int64_t> sessions;
  for (const auto& r : runs) {
    experiments.insert(r.experiment_name);
    gpus.insert(fmt::format("{} ({})", r.gpu_name, r.arch));
    commits.insert(short_commit(r));
    if (r.session_id != 0) sessions.insert(r.session_id);
  }
  const std::string what = experiments.size() > 4 ? fmt::format("{} experiments", experiments.size())
                                                  : fmt::format("{}", fmt::join(experiments, ", "));
  s.description = fmt::format("{}: {} runs of {} on {}, commit {}", s.label, runs.size(), what, fmt::join(gpus, ", "),
                              fmt::join(commits, ", "));
  if (!sessions.empty()) s.description += fmt::format(", session {}", fmt::join(sessions, ", "));
  return s;
}

} // namespace bb::query
