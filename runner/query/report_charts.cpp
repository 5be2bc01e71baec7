#include "query/report_charts.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "query/cells.hpp"
#include "query/metric_info.hpp"
#include "query/report_html.hpp"
#include "query/side.hpp"
#include "query/svg.hpp"

namespace bb::query::report_charts {

namespace {

template <class T> std::size_t index_of(std::vector<T>& list, const T& value) {
  const auto it = std::find(list.begin(), list.end(), value);
  if (it != list.end()) return static_cast<std::size_t>(it - list.begin());
  list.push_back(value);
  return list.size() - 1;
}

std::string params_label(const std::string& params_json) {
  const std::string p = compact_params(params_json);
  return p.empty() ? "-" : p;
}

bool any_value(const std::vector<svg::bar_series>& series) {
  for (const auto& s : series)
    for (const auto& v : s.values)
      if (v) return true;
  return false;
}

// The numeric parameter with the most distinct values (at least two), or "".
std::string size_parameter(const std::vector<store::result_row>& rows) {
  std::map<std::string, std::set<double>> values;
  std::set<std::string> not_numeric;
  for (const auto& r : rows) {
    const auto p = nlohmann::json::parse(r.params_json, nullptr, false);
    if (!p.is_object()) continue;
    for (const auto& [key, v] : p.items()) {
      if (v.is_number())
        values[key].insert(v.get<double>());
      else
        not_numeric.insert(key);
    }
  }
  std::string best;
  std::size_t most = 1;
  for (const auto& [key, set] : values)
    if (not_numeric.count(key) == 0 && set.size() > most) {
      best = key;
      most = set.size();
    }
  return best;
}

} // namespace

std::optional<std::string> variant_bars(const std::vector<store::result_row>& rows, const std::string& metric,
                                        const std::string& context) {
  const metric_info info = describe_metric(metric);
  svg::bar_chart chart;
  chart.title = fmt::format("{} by variant", info.label);
  chart.y_label = info.label;
  std::vector<std::string> variants;
  for (const auto& r : rows) {
    const std::size_t c = index_of(chart.categories, params_label(r.params_json));
    const std::size_t s = index_of(variants, short_variant(r.variant));
    if (chart.series.size() <= s) chart.series.push_back({variants[s], {}});
    chart.flags.resize(chart.categories.size());
    for (auto& series : chart.series) series.values.resize(chart.categories.size());
    chart.series[s].values[c] = value_of(r, metric);
    for (const auto& e : r.failed_expectations)
      if (e.metric == metric)
        chart.flags[c] += (chart.flags[c].empty() ? "failed: " : "; ") + short_variant(r.variant) + " " + e.text;
  }
  for (auto& series : chart.series) series.values.resize(chart.categories.size());
  if (!any_value(chart.series)) return std::nullopt;
  return html::figure(svg::render(chart), fmt::format("{} ({}), mean over launches, by parameters; a shaded group "
                                                      "holds a failed expectation. {}",
                                                      info.label, metric, context));
}

std::optional<std::string> against_size(const std::vector<store::result_row>& rows, const std::string& metric,
                                        const std::string& context) {
  const std::string size = size_parameter(rows);
  if (size.empty()) return std::nullopt;
  const metric_info info = describe_metric(metric);
  svg::line_chart chart;
  chart.title = fmt::format("{} against {}", info.label, size);
  chart.x_label = size;
  chart.y_label = info.label;
  chart.log_x = true;
  chart.log_y = metric == "median_ns";
  std::vector<std::string> names;
  for (const auto& r : rows) {
    const auto v = value_of(r, metric);
    auto p = nlohmann::json::parse(r.params_json, nullptr, false);
    if (!v || !p.is_object() || !p.contains(size)) continue;
    const double x = p[size].get<double>();
    p.erase(size);
    const std::string rest = compact_params(p.dump());
    const std::string name = short_variant(r.variant) + (rest.empty() ? "" : " " + rest);
    const std::size_t s = index_of(names, name);
    if (chart.series.size() <= s) chart.series.push_back({name, {}, {}});
    chart.series[s].points.emplace_back(x, *v * info.scale);
  }
  if (chart.series.empty()) return std::nullopt;
  return html::figure(svg::render(chart),
                      fmt::format("{} ({}) against {}, {}. {}", info.label, metric, size,
                                  chart.log_y ? "both axes logarithmic" : "size axis logarithmic", context));
}

std::optional<std::string>
across_gpus(const std::vector<std::pair<store::run_info, std::vector<store::result_row>>>& runs,
            const std::string& metric) {
  const metric_info info = describe_metric(metric);
  svg::bar_chart chart;
  chart.title = fmt::format("{} across GPUs", info.label);
  chart.y_label = info.label;
  chart.log_y = metric == "median_ns";
  for (const auto& [run, rows] : runs) {
    svg::bar_series s{fmt::format("{} ({}, run {})", run.gpu_name, run.arch, run.id), {}};
    for (const auto& r : rows) {
      const std::size_t c = index_of(chart.categories, short_variant(r.variant) + " " + params_label(r.params_json));
      s.values.resize(std::max(s.values.size(), c + 1));
      const auto v = value_of(r, metric);
      s.values[c] = v ? std::optional<double>(*v * info.scale) : std::nullopt;
    }
    chart.series.push_back(std::move(s));
  }
  for (auto& s : chart.series) s.values.resize(chart.categories.size());
  std::size_t with_values = 0;
  for (const auto& s : chart.series)
    with_values += std::any_of(s.values.begin(), s.values.end(), [](const auto& v) { return v.has_value(); }) ? 1 : 0;
  if (with_values < 2) return std::nullopt;
  return html::figure(svg::render(chart, 900, 340),
                      fmt::format("{} ({}) of the newest run on each GPU; the bank model counts as a GPU of its own.",
                                  info.label, metric));
}

std::optional<std::string> predicted_vs_measured(const std::vector<store::result_row>& measured,
                                                 const std::vector<store::result_row>& predicted) {
  std::map<std::string, const store::result_row*> model;
  for (const auto& r : predicted) model[configuration_key(r)] = &r;
  svg::line_chart chart;
  chart.title = "measured against predicted wavefronts per request";
  chart.x_label = "predicted by the bank model";
  chart.y_label = "measured";
  chart.points_only = true;
  chart.diagonal = true;
  std::vector<std::string> names;
  for (const auto& r : measured) {
    for (const char* side : {"load", "store"}) {
      const std::string metric = std::string(side) + "_wavefronts_per_request";
      const auto m = value_of(r, metric);
      auto p = value_of(r, "predicted_" + metric);
      if (const auto it = model.find(configuration_key(r)); !p && it != model.end()) p = value_of(*it->second, metric);
      if (!m || !p) continue;
      const std::size_t s = index_of(names, short_variant(r.variant) + (side[0] == 'l' ? " ld" : " st"));
      if (chart.series.size() <= s) chart.series.push_back({names[s], {}, {}});
      chart.series[s].points.emplace_back(*p, *m);
      chart.series[s].notes.push_back(params_label(r.params_json));
    }
  }
  if (chart.series.empty()) return std::nullopt;
  return html::figure(svg::render(chart), "Each point is one configuration: the bank model's prediction across, the "
                                          "counters' measurement up; points off the dashed diagonal disagree.");
}

} // namespace bb::query::report_charts
