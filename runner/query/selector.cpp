#include "runner/query/selector.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "runner/common/error.hpp"
#include "runner/common/path_text.hpp"
#include "runner/query/baseline_doc.hpp"
#include "runner/store/baselines.hpp"

namespace bb::query {

namespace {

std::optional<std::int64_t> as_run_id(std::string_view text) {
  if (text.empty() || text.size() > 18 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return std::nullopt;
  return std::stoll(std::string(text));
}

bool is_hex(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

side read_side(const store::database& db, std::string label, const std::vector<store::run_info>& runs,
               const store::result_query& query) {
  std::vector<std::int64_t> ids;
  for (const auto& r : runs) ids.push_back(r.id);
  return side_of_runs(std::move(label), runs, store::read_results(db, ids, query));
}

side baseline_side(const store::baseline_entry& entry) {
  const auto doc = nlohmann::json::parse(entry.content_json, nullptr, false);
  const std::string origin = "baseline " + entry.name;
  check_baseline_document(doc, origin);
  return side_of_baseline(doc);
}

[[noreturn]] void nothing_matches(const std::string& spec, const store::database& db) {
  throw usage_error(fmt::format("no run, session, baseline, experiment or commit '{}' in {}; give a run id (`bankbench "
                                "list runs`), `latest`, session:N, a baseline name (`bankbench baseline list`), "
                                "experiment:NAME or a commit",
                                spec, shown_path(db.path())));
}

// A baseline's runs that this database holds: the same GPU, start, experiment and host.
std::vector<store::run_info> runs_of_baseline(const side& baseline, const std::vector<store::run_info>& runs) {
  std::vector<store::run_info> out;
  for (const auto& r : runs)
    for (const auto& b : baseline.runs)
      if (r.gpu_uuid == b.gpu_uuid && r.backend == b.backend && r.started_at == b.started_at &&
          r.experiment_name == b.experiment_name && r.host == b.host) {
        out.push_back(r);
        break;
      }
  return out;
}

std::string label_of(const std::vector<store::run_info>& runs, const std::string& many) {
  return runs.size() == 1 ? fmt::format("run {}", runs.front().id) : many;
}

} // namespace

std::vector<store::run_info> runs_at_commit(const std::vector<store::run_info>& runs, const std::string& prefix) {
  const std::string wanted = lower(prefix);
  std::map<std::pair<std::string, std::int64_t>, store::run_info> newest; // (experiment, gpu) -> run
  for (const auto& r : runs)
    if (lower(r.git_commit).rfind(wanted, 0) == 0) newest[{r.experiment_name, r.gpu_id}] = r; // runs are oldest first
  std::vector<store::run_info> out;
  for (auto& [key, run] : newest) out.push_back(std::move(run));
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  return out;
}

std::vector<store::run_info> runs_before(const std::vector<store::run_info>& runs,
                                         const std::vector<store::run_info>& anchor) {
  std::set<std::int64_t> anchor_ids;
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  std::set<std::pair<std::string, std::string>> wanted; // (experiment, arch)
  for (const auto& a : anchor) {
    if (a.id > 0) {
      anchor_ids.insert(a.id);
      first = std::min(first, a.id);
    }
    wanted.insert({a.experiment_name, a.arch});
  }
  std::map<std::pair<std::string, std::string>, store::run_info> newest;
  for (const auto& r : runs)
    if (r.id < first && anchor_ids.count(r.id) == 0 && wanted.count({r.experiment_name, r.arch}) > 0)
      newest[{r.experiment_name, r.arch}] = r;
  std::vector<store::run_info> out;
  for (auto& [key, run] : newest) out.push_back(std::move(run));
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  return out;
}

std::vector<store::run_info> latest_per_gpu(const std::vector<store::run_info>& runs, const std::string& experiment) {
  std::map<std::int64_t, store::run_info> newest; // gpu id -> run
  for (const auto& r : runs)
    if (r.experiment_name == experiment) newest[r.gpu_id] = r;
  std::vector<store::run_info> out;
  for (auto& [gpu, run] : newest) out.push_back(std::move(run));
  return out;
}

std::vector<store::run_info> runs_of_session(const std::vector<store::run_info>& runs, const store::run_info& member) {
  if (member.session_id == 0) return {member}; // written before sessions: a session of its own
  std::vector<store::run_info> out;
  for (const auto& r : runs)
    if (r.session_id == member.session_id) out.push_back(r);
  return out;
}

std::vector<store::run_info> latest_session(const std::vector<store::run_info>& runs) {
  if (runs.empty()) return {};
  return runs_of_session(runs, runs.back()); // runs are oldest first: the newest run's session
}

store::run_info select_run(const std::vector<store::run_info>& runs, const std::string& spec,
                           const std::string& db_path) {
  if (spec == "latest") {
    if (runs.empty()) throw usage_error(db_path + " holds no runs yet; run `bankbench run` first");
    return runs.back();
  }
  const std::string_view text = spec.rfind("run:", 0) == 0 ? std::string_view(spec).substr(4) : std::string_view(spec);
  const auto id = as_run_id(text);
  if (!id) throw usage_error(fmt::format("'{}' is not a run id; give a number from `bankbench list runs`", spec));
  for (const auto& r : runs)
    if (r.id == *id) return r;
  throw usage_error(fmt::format("no run {} in {}; `bankbench list runs` lists the runs there", *id, db_path));
}

selection resolve_spec(const store::database& db, const std::string& spec, const side* anchor) {
  const auto runs = store::run_infos(db);
  if (spec == "latest" && anchor == nullptr) {
    auto session = latest_session(runs);
    if (session.empty()) throw usage_error(shown_path(db.path()) + " holds no runs yet; run `bankbench run` first");
    const std::string label = label_of(session, fmt::format("session {}", session.front().session_id));
    return {label, std::move(session), "", std::nullopt};
  }
  if (spec == "latest") {
    auto before = runs_before(runs, anchor->runs);
    if (before.empty())
      throw usage_error(fmt::format("no earlier run of the same experiment on the same architecture as {} in {}",
                                    anchor->label, shown_path(db.path())));
    const std::string label = label_of(before, "previous runs");
    return {label, std::move(before), "", std::nullopt};
  }
  if (spec.rfind("session:", 0) == 0) {
    const auto id = as_run_id(std::string_view(spec).substr(8));
    if (!id)
      throw usage_error(fmt::format("'{}' is not a session; give session:N with N from `bankbench list runs`", spec));
    std::vector<store::run_info> session;
    for (const auto& r : runs)
      if (r.session_id == *id) session.push_back(r);
    if (session.empty())
      throw usage_error(fmt::format("no session {} in {}; `bankbench list runs` shows each run's session", *id,
                                    shown_path(db.path())));
    return {fmt::format("session {}", *id), std::move(session), "", std::nullopt};
  }
  if (spec.rfind("run:", 0) == 0 || as_run_id(spec)) {
    auto run = select_run(runs, spec, shown_path(db.path()));
    return {fmt::format("run {}", run.id), {std::move(run)}, "", std::nullopt};
  }
  if (spec.rfind("experiment:", 0) == 0) {
    const std::string name = spec.substr(11);
    auto newest = latest_per_gpu(runs, name);
    if (newest.empty())
      throw usage_error(
          fmt::format("no run of experiment '{}' in {}; `bankbench list runs` names the experiments there", name,
                      shown_path(db.path())));
    std::sort(newest.begin(), newest.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    const std::string label = label_of(newest, "experiment " + name);
    return {label, std::move(newest), "", std::nullopt};
  }
  const bool explicit_baseline = spec.rfind("baseline:", 0) == 0;
  const std::string name = explicit_baseline ? spec.substr(9) : spec;
  if (const auto entry = store::find_baseline(db, name)) {
    side b = baseline_side(*entry);
    auto saved_from = runs_of_baseline(b, runs);
    std::string label = b.label;
    return {std::move(label), std::move(saved_from), entry->name, std::move(b)};
  }
  if (explicit_baseline)
    throw usage_error(
        fmt::format("no baseline '{}' in {}; `bankbench baseline list` lists them", name, shown_path(db.path())));
  const bool explicit_commit = spec.rfind("commit:", 0) == 0;
  const std::string prefix = explicit_commit ? spec.substr(7) : spec;
  if (is_hex(prefix) && (prefix.size() >= 4 || explicit_commit)) {
    auto at = runs_at_commit(runs, prefix);
    std::set<std::string> commits;
    for (const auto& r : at) commits.insert(r.git_commit);
    if (commits.size() > 1)
      throw usage_error(fmt::format("commit '{}' is ambiguous in {}: it begins {} commits; give more digits", prefix,
                                    shown_path(db.path()), commits.size()));
    if (!at.empty()) {
      const std::string label = "commit " + at.front().git_commit.substr(0, 12);
      return {label, std::move(at), "", std::nullopt};
    }
  }
  nothing_matches(spec, db);
}

std::vector<store::run_info> select_runs(const store::database& db, const std::string& spec) {
  auto s = resolve_spec(db, spec);
  if (s.baseline && s.runs.empty())
    throw usage_error(fmt::format("{} was saved from runs that {} does not hold; `bankbench baseline show {}` prints "
                                  "it",
                                  s.label, shown_path(db.path()), s.baseline_name));
  return std::move(s.runs);
}

side select_side(const store::database& db, const std::string& spec, const store::result_query& query,
                 const side* anchor) {
  auto s = resolve_spec(db, spec, anchor);
  if (s.baseline) return std::move(*s.baseline);
  return read_side(db, s.label, s.runs, query);
}

} // namespace bb::query
