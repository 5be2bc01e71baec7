#include "runner/query/metric_info.hpp"

#include <map>
#include <optional>

#include "runner/common/metrics.hpp"

namespace bb::query {

namespace {

struct known {
  const char* label;
  int decimals;
  metric_kind kind;
};

const std::map<std::string, known, std::less<>>& known_metrics() {
  static const std::map<std::string, known, std::less<>> table = {
      {"load_wavefronts_per_request", {"ld wf/req", 2, metric_kind::ratio}},
      {"store_wavefronts_per_request", {"st wf/req", 2, metric_kind::ratio}},
      {"load_conflicts_per_request", {"ld conflicts/req", 3, metric_kind::ratio}},
      {"store_conflicts_per_request", {"st conflicts/req", 3, metric_kind::ratio}},
      {"load_excess_wavefronts_per_request", {"ld excess/req", 3, metric_kind::ratio}},
      {"store_excess_wavefronts_per_request", {"st excess/req", 3, metric_kind::ratio}},
      {"load_requests", {"ld req", 0, metric_kind::count}},
      {"store_requests", {"st req", 0, metric_kind::count}},
      {"load_wavefronts", {"ld wf", 0, metric_kind::count}},
      {"store_wavefronts", {"st wf", 0, metric_kind::count}},
      {"load_conflicts", {"ld conflicts", 0, metric_kind::count}},
      {"store_conflicts", {"st conflicts", 0, metric_kind::count}},
      {"load_excess_wavefronts", {"ld excess wf", 0, metric_kind::count}},
      {"store_excess_wavefronts", {"st excess wf", 0, metric_kind::count}},
      {"predicted_load_wavefronts_per_request", {"pred ld wf/req", 2, metric_kind::other}},
      {"predicted_store_wavefronts_per_request", {"pred st wf/req", 2, metric_kind::other}},
      {"profiled_time_ns", {"profiled ns", 0, metric_kind::other}},
      {"median_ns", {"median us", 2, metric_kind::time}},
      {"bandwidth_gbps", {"GB/s", 1, metric_kind::time}},
  };
  return table;
}

struct kind_label {
  std::string label;
  int decimals;
  metric_kind kind;
};

/// Per-kind derived metrics (common/metrics.hpp access_kinds): "ldsm_wavefronts_per_request" is
/// "ldsm wf/req", a ratio like the load one.
std::optional<kind_label> kind_metric(std::string_view name) {
  static const std::pair<const char*, kind_label> suffixes[] = {
      {"_wavefronts_per_request", {" wf/req", 2, metric_kind::ratio}},
      {"_conflicts_per_request", {" conflicts/req", 3, metric_kind::ratio}},
      {"_excess_wavefronts_per_request", {" excess/req", 3, metric_kind::ratio}},
      {"_requests", {" req", 0, metric_kind::count}},
      {"_wavefronts", {" wf", 0, metric_kind::count}},
      {"_conflicts", {" conflicts", 0, metric_kind::count}},
  };
  for (const auto& k : metrics::access_kinds()) {
    const std::string prefix = std::string(k.name) + "_";
    if (!name.starts_with(prefix)) continue;
    const std::string_view rest = name.substr(prefix.size() - 1);
    for (const auto& [suffix, label] : suffixes)
      if (rest == suffix) return kind_label{k.label + label.label, label.decimals, label.kind};
  }
  return std::nullopt;
}

} // namespace

metric_info describe_metric(std::string_view name) {
  metric_info m;
  m.name = std::string(name);
  m.label = m.name;
  const auto& table = known_metrics();
  if (const auto it = table.find(name); it != table.end()) {
    m.label = it->second.label;
    m.decimals = it->second.decimals;
    m.kind = it->second.kind;
  } else if (const auto k = kind_metric(name)) {
    m.label = k->label;
    m.decimals = k->decimals;
    m.kind = k->kind;
  } else {
    m.decimals = 3;
  }
  if (name == "median_ns") m.scale = 1e-3;
  if (name == "bandwidth_gbps") m.higher_is_worse = false;
  if (name.ends_with("_requests")) m.judged = false;
  if (m.kind == metric_kind::other) m.judged = false;
  return m;
}

const std::vector<std::string>& default_compare_metrics() {
  static const std::vector<std::string> names = {"load_wavefronts_per_request", "store_wavefronts_per_request",
                                                 "median_ns"};
  return names;
}

const std::vector<std::string>& default_regress_metrics() {
  static const std::vector<std::string> names = {"load_wavefronts_per_request", "load_requests",
                                                 "store_wavefronts_per_request", "store_requests"};
  return names;
}

std::optional<double> value_of(const store::result_row& row, const std::string& name) {
  // unverified: a source variant without a check; its measurements are as real as an ok one's
  if (row.status != config_status::ok && row.status != config_status::unverified) return std::nullopt;
  if (name == "median_ns") return row.median_ns;
  if (name == "bandwidth_gbps") return row.bandwidth_gbps;
  const auto it = row.metrics.find(name);
  if (it == row.metrics.end()) return std::nullopt;
  return it->second.mean;
}

std::vector<std::string> split_metrics(const std::vector<std::string>& options) {
  std::vector<std::string> names;
  for (const auto& option : options) {
    std::size_t start = 0;
    while (start <= option.size()) {
      const std::size_t comma = option.find(',', start);
      const std::string name = option.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!name.empty()) names.push_back(name);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return names;
}

} // namespace bb::query
