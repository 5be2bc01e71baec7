#include "runner/query/metric_info.hpp"

#include <optional>

#include <algorithm>

#include <fmt/format.h>

#include "runner/common/error.hpp"
#include "runner/common/metrics.hpp"
#include "runner/common/suggest.hpp"

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

void check_metric_names(const std::vector<std::string>& names, const std::vector<std::string>& stored,
                        const std::string& where) {
  std::vector<std::string> known = stored;
  known.insert(known.end(), {"median_ns", "bandwidth_gbps"});
  for (const auto& m : names) {
    if (std::find(known.begin(), known.end(), m) != known.end()) continue;
    // A metric bankbench knows that no run collected is not a typo of one that some run did.
    const bool real = metrics::is_derived(m) || m.find("__") != std::string::npos;
    std::string hint = real ? "no run collected it (see the experiment's `metrics:`)" : did_you_mean(m, known);
    if (hint.empty()) hint = "`bankbench list metrics` lists the derived metrics";
    throw usage_error(fmt::format("-m {}: no run in {} holds a metric of this name; {}", m, where, hint));
  }
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
    // "-m ," would otherwise be no -m at all: the default metrics, not what was asked.
    if (names.empty() || option.find_first_not_of(',') == std::string::npos)
      throw usage_error(fmt::format("-m '{}' names no metric; give names separated by commas, e.g. "
                                    "-m load_wavefronts_per_request,median_ns",
                                    option));
  }
  return names;
}

} // namespace bb::query
