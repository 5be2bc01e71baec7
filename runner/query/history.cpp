#include "runner/query/history.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runner/common/error.hpp"
#include "runner/query/cells.hpp"
#include "runner/query/side.hpp"
#include "runner/query/stats.hpp"

namespace bb::query {

namespace {

bool param_matches(const nlohmann::json& params, const std::pair<std::string, std::string>& filter) {
  const auto it = params.find(filter.first);
  if (it == params.end()) return false;
  const auto wanted = nlohmann::json::parse(filter.second, nullptr, false);
  if (!wanted.is_discarded() && *it == wanted) return true;
  return it->is_string() && it->get<std::string>() == filter.second;
}

bool matches(const store::result_row& r, const history_query& q) {
  if (r.variant != q.variant && short_variant(r.variant) != q.variant) return false;
  return params_match(r.params_json, q.params);
}

bool gpu_matches(const store::run_info& run, const std::string& gpu) {
  return gpu.empty() || run.arch == gpu || run.gpu_name.find(gpu) != std::string::npos || run.gpu_uuid == gpu;
}

history_point point_of(const store::run_info& run, const store::result_row& r, const std::string& metric) {
  history_point p{run, canonical_params(r.params_json), std::nullopt, std::nullopt, std::nullopt, 0};
  if (r.status != config_status::ok) return p;
  if (metric == "median_ns" && !r.samples_ns.empty()) {
    p.value = r.sample_median();
    p.min = *std::min_element(r.samples_ns.begin(), r.samples_ns.end());
    p.max = *std::max_element(r.samples_ns.begin(), r.samples_ns.end());
    p.launches = static_cast<int>(r.samples_ns.size());
  } else if (metric == "median_ns" || metric == "bandwidth_gbps") {
    p.value = metric == "median_ns" ? r.median_ns : r.bandwidth_gbps;
    p.launches = p.value ? 1 : 0;
  } else if (const auto it = r.metrics.find(metric); it != r.metrics.end()) {
    p.value = it->second.mean;
    p.min = it->second.min;
    p.max = it->second.max;
    p.launches = it->second.launches;
  }
  return p;
}

} // namespace

std::pair<std::string, std::string> parse_param_filter(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw usage_error(fmt::format("--param '{}': expected NAME=VALUE, e.g. n=4096", text));
  return {text.substr(0, eq), text.substr(eq + 1)};
}

std::vector<std::pair<std::string, std::string>> parse_param_filters(const std::vector<std::string>& texts) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& text : texts) {
    auto f = parse_param_filter(text);
    const auto same = std::find_if(out.begin(), out.end(), [&](const auto& o) { return o.first == f.first; });
    if (same == out.end())
      out.push_back(std::move(f));
    else if (same->second != f.second)
      throw usage_error(fmt::format("--param {} is given twice, {}={} and {}={}; a configuration has one value of "
                                    "each parameter: give it once",
                                    f.first, f.first, same->second, f.first, f.second));
  }
  return out;
}

bool params_match(const std::string& params_json, const std::vector<std::pair<std::string, std::string>>& filters) {
  if (filters.empty()) return true;
  const auto params = nlohmann::json::parse(params_json, nullptr, false);
  return std::all_of(filters.begin(), filters.end(), [&](const auto& f) { return param_matches(params, f); });
}

std::vector<history_point> metric_history(const store::database& db, const history_query& q) {
  std::vector<store::run_info> runs;
  for (const auto& r : store::run_infos(db))
    if ((q.experiment.empty() || r.experiment_name == q.experiment) && gpu_matches(r, q.gpu)) runs.push_back(r);
  std::map<std::int64_t, const store::run_info*> by_id;
  std::vector<std::int64_t> ids;
  for (const auto& r : runs) {
    by_id[r.id] = &r;
    ids.push_back(r.id);
  }
  const bool time = q.metric == "median_ns" || q.metric == "bandwidth_gbps";
  // For a time, "-" (a name no metric has) reads the timing alone.
  const auto rows = store::read_results(db, ids, {{time ? std::string("-") : q.metric}, q.metric == "median_ns"});
  std::vector<history_point> points;
  std::set<std::string> configurations;
  for (const auto& r : rows) {
    if (!matches(r, q)) continue;
    configurations.insert(r.experiment + " " + r.variant + " " + compact_params(r.params_json));
    points.push_back(point_of(*by_id.at(r.run_id), r, q.metric));
  }
  if (points.empty())
    throw usage_error(fmt::format("no run in {} has a configuration of variant '{}'{}; `bankbench show RUN` lists them",
                                  db.path(), q.variant, q.params.empty() ? "" : " with those parameters"));
  if (configurations.size() > 1) {
    std::string list;
    std::size_t shown = 0;
    for (const auto& c : configurations)
      if (shown++ < 6) list += "\n  " + c;
    if (configurations.size() > 6) list += fmt::format("\n  ... and {} more", configurations.size() - 6);
    throw usage_error(fmt::format("{} configurations match; name one with --param NAME=VALUE (and --experiment):{}",
                                  configurations.size(), list));
  }
  if (q.limit > 0 && points.size() > q.limit)
    points.erase(points.begin(), points.end() - static_cast<std::ptrdiff_t>(q.limit));
  return points;
}

} // namespace bb::query
