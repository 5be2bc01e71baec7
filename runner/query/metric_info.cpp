#include "runner/query/metric_info.hpp"

#include <optional>

#include "runner/common/metrics.hpp"

namespace bb::query {

metric_info describe_metric(std::string_view name) {
  metric_info m;
  m.name = std::string(name);
  m.label = m.name;
  if (const auto* d = metrics::find_metric(name)) {
    if (!d->label.empty()) m.label = d->label;
    m.decimals = d->decimals;
    m.kind = d->kind;
  } else {
    m.decimals = 3; // a raw counter or an unknown name: shown as it is stored
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
