#include <algorithm>
#include <charconv>
#include <cmath>

#include "runner/config/build.hpp"
#include "runner/config/experiment.hpp"

namespace bb::config {

bool expectation::applies_to(const std::string& variant, const nlohmann::json& params) const {
  if (!variants.empty() && std::find(variants.begin(), variants.end(), variant) == variants.end()) return false;
  for (const auto& [key, value] : where.items())
    if (!params.contains(key) || params.at(key) != value) return false;
  return true;
}

bool expectation::holds(double value) const {
  if (std::isnan(value)) return false;
  if (low && (low_inclusive ? value < *low : value <= *low)) return false;
  if (high && (high_inclusive ? value > *high : value >= *high)) return false;
  return true;
}

std::vector<expectation_outcome> judge_expectations(
    const experiment& exp, const configuration& cfg,
    const std::function<std::optional<double>(const std::string& metric)>& observe, bool counters_ran) {
  std::vector<expectation_outcome> out;
  for (const auto& e : exp.expectations) {
    if (!e.applies_to(cfg.variant, cfg.params)) continue;
    const auto observed = observe(e.metric);
    if (!observed && !counters_ran) continue; // counters were off: nothing to judge
    out.push_back({e.metric, e.text, observed, observed && e.holds(*observed)});
  }
  return out;
}

namespace detail {

std::string format_number(double value) {
  char buf[64];
  // Shortest text that reads back as the same double: 31, 0.01, 1e-05.
  const auto result = std::to_chars(buf, buf + sizeof buf, value);
  return std::string(buf, result.ptr);
}

} // namespace detail

} // namespace bb::config
