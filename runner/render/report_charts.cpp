#include "runner/render/report_charts.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runner/query/cells.hpp"
#include "runner/query/metric_info.hpp"
#include "runner/query/side.hpp"
#include "runner/render/report_html.hpp"
#include "runner/render/svg.hpp"

namespace bb::render::report_charts {

using query::compact_params;
using query::configuration_key;
using query::describe_metric;
using query::metric_info;
using query::short_variant;
using query::value_of;

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

/// Which parameters vary among the rows (more than one value), and the text of those that do not.
struct parameter_split {
  std::vector<std::string> varying; ///< in name order
  std::set<std::string> numeric;    ///< varying parameters whose every value is a number
  std::string fixed;                ///< "block_rows=8 tile=32", or ""
};

parameter_split split_parameters(const std::vector<store::result_row>& rows) {
  std::map<std::string, std::set<std::string>> values;
  std::set<std::string> not_numeric;
  nlohmann::json first = nlohmann::json::object();
  for (const auto& r : rows) {
    const auto p = nlohmann::json::parse(r.params_json, nullptr, false);
    if (!p.is_object()) continue;
    if (first.empty()) first = p;
    for (const auto& [key, v] : p.items()) {
      values[key].insert(v.dump());
      if (!v.is_number()) not_numeric.insert(key);
    }
  }
  parameter_split out;
  nlohmann::json fixed = nlohmann::json::object();
  for (const auto& [key, set] : values) {
    if (set.size() > 1) {
      out.varying.push_back(key);
      if (not_numeric.count(key) == 0) out.numeric.insert(key);
    } else if (first.contains(key)) {
      fixed[key] = first[key];
    }
  }
  out.fixed = compact_params(fixed.dump());
  return out;
}

/// The row's parameters named in `keys` only, as "n=1024 tile=32"; "all" when none.
std::string label_of(const store::result_row& r, const std::vector<std::string>& keys) {
  const auto p = nlohmann::json::parse(r.params_json, nullptr, false);
  nlohmann::json kept = nlohmann::json::object();
  for (const auto& k : keys)
    if (p.is_object() && p.contains(k)) kept[k] = p[k];
  const std::string text = compact_params(kept.dump());
  return text.empty() ? "all" : text;
}

std::string value_text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

/// Why a row has no value of `metric`: its status where it did not finish, else "".
std::string missing_reason(const store::result_row& r) {
  if (r.status == config_status::ok) return "";
  return r.status == config_status::not_modelled
             ? "not modelled (no access plan, or kernel code the model cannot follow)"
             : name_of(r.status);
}

bool powers_of_two(const std::set<double>& xs) {
  if (xs.size() < 3 || *xs.begin() <= 0) return false;
  for (const double x : xs) {
    const double l = std::log2(x);
    if (std::abs(l - std::round(l)) > 1e-9) return false;
  }
  return true;
}

std::string caption_of(const metric_info& info, const std::string& metric, const parameter_split& split,
                       const std::string& how, const std::vector<std::string>& missing, const std::string& context) {
  std::string text = fmt::format("{} ({}), mean over launches, {}.", info.label, metric, how);
  if (!split.fixed.empty()) text += " Fixed: " + split.fixed + ".";
  if (!missing.empty()) {
    text += fmt::format(" No value (marked \u00d7): {}", missing.front());
    if (missing.size() > 1) text += fmt::format(" and {} more", missing.size() - 1);
    text += ".";
  }
  return text + " " + context;
}

} // namespace

std::vector<std::string> by_parameters(const std::vector<store::result_row>& rows, const std::string& metric,
                                       const std::string& context) {
  const metric_info info = describe_metric(metric);
  const parameter_split split = split_parameters(rows);
  std::vector<std::string> missing;
  bool any = false;
  for (const auto& r : rows) {
    if (value_of(r, metric))
      any = true;
    else if (const std::string why = missing_reason(r); !why.empty())
      missing.push_back(short_variant(r.variant) + " " + label_of(r, split.varying) + " (" + why + ")");
  }
  if (!any) return {};
  std::vector<std::string> variants;
  for (const auto& r : rows) index_of(variants, short_variant(r.variant));

  // One numeric parameter varies: a line per variant (and per value of the others that vary).
  if (split.numeric.size() == 1) {
    const std::string x_name = *split.numeric.begin();
    std::vector<std::string> others;
    for (const auto& k : split.varying)
      if (k != x_name) others.push_back(k);
    std::set<double> xs;
    std::vector<std::string> names;
    for (const auto& r : rows) {
      const auto p = nlohmann::json::parse(r.params_json, nullptr, false);
      xs.insert(p[x_name].get<double>());
      const std::string rest = others.empty() ? "" : " " + label_of(r, others);
      index_of(names, short_variant(r.variant) + rest);
    }
    if (xs.size() >= 3 && names.size() <= 8) {
      svg::line_chart chart;
      chart.title = fmt::format("{} against {}", info.label, x_name);
      chart.x_label = x_name;
      chart.y_label = info.label;
      chart.log_x = powers_of_two(xs) || (*xs.begin() > 0 && *xs.rbegin() / *xs.begin() >= 64);
      chart.y_from_zero = true; // wavefronts and conflicts per request: the distance from 0 is the point
      for (const auto& n : names) chart.series.push_back({n, {}, {}});
      for (const auto& r : rows) {
        const auto v = value_of(r, metric);
        if (!v) continue;
        const auto p = nlohmann::json::parse(r.params_json, nullptr, false);
        const std::string rest = others.empty() ? "" : " " + label_of(r, others);
        chart.series[index_of(names, short_variant(r.variant) + rest)].points.emplace_back(p[x_name].get<double>(),
                                                                                           *v * info.scale);
        for (const auto& e : r.failed_expectations)
          if (e.metric == metric)
            chart.flags.push_back(
                {p[x_name].get<double>(), *v * info.scale,
                 "failed: " + short_variant(r.variant) + " " + label_of(r, split.varying) + ": " + e.text});
      }
      return {html::figure(svg::render(chart),
                           caption_of(info, metric, split,
                                      fmt::format("against {}{}, one line per variant{}", x_name,
                                                  chart.log_x ? " (logarithmic)" : "",
                                                  chart.flags.empty() ? "" : "; a red ring marks a failed expectation"),
                                      missing, context))};
    }
  }

  // Two parameters vary: a heat map per variant, the one with more values across.
  if (split.varying.size() == 2 && variants.size() <= 6) {
    std::vector<std::vector<std::string>> values(2);
    std::vector<std::vector<double>> numbers(2);
    for (const auto& r : rows) {
      const auto p = nlohmann::json::parse(r.params_json, nullptr, false);
      for (int k = 0; k < 2; ++k) {
        const auto& v = p[split.varying[k]];
        if (std::find(values[k].begin(), values[k].end(), value_text(v)) == values[k].end()) {
          values[k].push_back(value_text(v));
          numbers[k].push_back(v.is_number() ? v.get<double>() : 0);
        }
      }
    }
    for (int k = 0; k < 2; ++k)
      if (split.numeric.count(split.varying[k]) != 0) { // numbers in numeric order
        std::vector<std::size_t> order(values[k].size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::sort(order.begin(), order.end(), [&](auto a, auto b) { return numbers[k][a] < numbers[k][b]; });
        std::vector<std::string> sorted;
        for (const auto i : order) sorted.push_back(values[k][i]);
        values[k] = sorted;
      }
    const int across = values[0].size() >= values[1].size() ? 0 : 1, down = 1 - across;
    std::vector<std::string> figures;
    for (const auto& variant : variants) {
      svg::heat_map map;
      map.title = fmt::format("{}: {} by {} and {}", variant, info.label, split.varying[across], split.varying[down]);
      map.x_label = split.varying[across];
      map.y_label = split.varying[down];
      map.value_label = info.label;
      map.x_categories = values[across];
      map.y_categories = values[down];
      map.values.assign(map.y_categories.size(), std::vector<std::optional<double>>(map.x_categories.size()));
      map.missing.assign(map.y_categories.size(), std::vector<std::string>(map.x_categories.size()));
      for (const auto& r : rows) {
        if (short_variant(r.variant) != variant) continue;
        const auto p = nlohmann::json::parse(r.params_json, nullptr, false);
        const auto xi = static_cast<std::size_t>(
            std::find(map.x_categories.begin(), map.x_categories.end(), value_text(p[map.x_label])) -
            map.x_categories.begin());
        const auto yi = static_cast<std::size_t>(
            std::find(map.y_categories.begin(), map.y_categories.end(), value_text(p[map.y_label])) -
            map.y_categories.begin());
        const auto v = value_of(r, metric);
        if (v)
          map.values[yi][xi] = *v * info.scale;
        else
          map.missing[yi][xi] = missing_reason(r);
      }
      const int width = std::clamp(static_cast<int>(map.x_categories.size()) * 22 + 120, 640, 1360);
      figures.push_back(
          html::figure(svg::render(map, width, 320),
                       caption_of(info, metric, split,
                                  fmt::format("of {} by {} (across) and {} (down); each cell gives its value", variant,
                                              split.varying[across], split.varying[down]),
                                  missing, context)));
    }
    return figures;
  }

  // Otherwise bars: a group per combination of the parameters that vary, a bar per variant.
  svg::bar_chart chart;
  chart.title = fmt::format("{} by variant", info.label);
  chart.y_label = info.label;
  for (const auto& r : rows) {
    const std::size_t c = index_of(chart.categories, label_of(r, split.varying));
    const std::size_t s = index_of(variants, short_variant(r.variant));
    if (chart.series.size() <= s) chart.series.resize(s + 1);
    chart.series[s].name = variants[s];
    chart.flags.resize(chart.categories.size());
    for (auto& series : chart.series) {
      series.values.resize(chart.categories.size());
      series.missing.resize(chart.categories.size());
    }
    const auto v = value_of(r, metric);
    chart.series[s].values[c] = v ? std::optional<double>(*v * info.scale) : std::nullopt;
    if (!v) chart.series[s].missing[c] = missing_reason(r);
    for (const auto& e : r.failed_expectations)
      if (e.metric == metric)
        chart.flags[c] += (chart.flags[c].empty() ? "failed: " : "; ") + short_variant(r.variant) + " " + e.text;
  }
  for (auto& series : chart.series) {
    series.values.resize(chart.categories.size());
    series.missing.resize(chart.categories.size());
  }
  const int width = std::clamp(
      static_cast<int>(chart.categories.size() * std::max<std::size_t>(1, variants.size())) * 10 + 120, 640, 1360);
  return {html::figure(svg::render(chart, width, 320),
                       caption_of(info, metric, split,
                                  "by the parameters that vary; a shaded group holds a failed expectation", missing,
                                  context))};
}

std::optional<std::string> against_size(const std::vector<store::result_row>& rows, const std::string& metric,
                                        const std::string& context) {
  const std::string size = size_parameter(rows);
  if (size.empty()) return std::nullopt;
  const parameter_split split = split_parameters(rows);
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
    nlohmann::json varying = nlohmann::json::object();
    for (const auto& k : split.varying)
      if (p.contains(k)) varying[k] = p[k];
    const std::string rest = compact_params(varying.dump());
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

std::optional<std::string> across_gpus(
    const std::vector<std::pair<store::run_info, std::vector<store::result_row>>>& runs, const std::string& metric) {
  const metric_info info = describe_metric(metric);
  svg::bar_chart chart;
  chart.title = fmt::format("{} across GPUs", info.label);
  chart.y_label = info.label;
  chart.log_y = metric == "median_ns";
  std::vector<store::result_row> all;
  for (const auto& [run, rows] : runs) all.insert(all.end(), rows.begin(), rows.end());
  const parameter_split split = split_parameters(all); // only what varies names a group
  for (const auto& [run, rows] : runs) {
    svg::bar_series s{fmt::format("{} ({}, run {})", run.gpu_name, run.arch, run.id), {}, {}};
    for (const auto& r : rows) {
      const std::size_t c = index_of(chart.categories, short_variant(r.variant) + " " + label_of(r, split.varying));
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
                      fmt::format("{} ({}) of the newest run on each GPU; the bank model counts as a GPU of its own.{}",
                                  info.label, metric, split.fixed.empty() ? "" : " Fixed: " + split.fixed + "."));
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

} // namespace bb::render::report_charts
