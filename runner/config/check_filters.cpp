#include <algorithm>
#include <map>

#include "runner/common/metrics.hpp"
#include "runner/config/build.hpp"
#include "runner/config/checks.hpp"
#include "runner/config/yaml_adapter.hpp"
#include "runner/config/yaml_scalar.hpp"

namespace bb::config::detail {

namespace {

const YAML::Node* find_axis(const check_context& ctx, const std::string& name) {
  for (const auto& a : ctx.axes)
    if (a.first == name) return &a.second;
  return nullptr;
}

void check_variant_name(check_context& ctx, const yaml_path& path, const std::string& name) {
  if (std::find(ctx.variants.begin(), ctx.variants.end(), name) != ctx.variants.end()) return;
  ctx.out.at_value(ctx.root, path, "'" + name + "' is not a variant of this experiment",
                   suggestion(name, ctx.variants, "its variants are "));
}

// A value that is not among the axis's values could never match: almost surely a typo.
void check_axis_value(check_context& ctx, const yaml_path& path, const std::string& axis, const YAML::Node& values,
                      const YAML::Node& value) {
  if (!values.IsSequence() || !value.IsScalar()) return;
  const nlohmann::json v = to_json(value);
  auto [known, fresh] = ctx.axis_values.try_emplace(axis);
  if (fresh)
    for (const auto& candidate : values) known->second.insert(canonical_value(to_json(candidate)));
  if (known->second.count(canonical_value(v)) != 0) return;
  std::string listed;
  for (const auto& candidate : values) listed += (listed.empty() ? "" : ", ") + to_json(candidate).dump();
  ctx.out.at_value(ctx.root, path, v.dump() + " is not a value of axis '" + axis + "'", "its values are " + listed);
}

// exclude[i] and expect[i].where: `variant` (exclude only) and axis names -> one value each.
void check_assignment(check_context& ctx, const yaml_path& path, bool allow_variant) {
  const auto at = locate(ctx.root, path);
  if (!at || !at->value.IsMap()) return;
  std::vector<std::string> keys = axis_names(ctx);
  if (allow_variant) keys.insert(keys.begin(), "variant");
  for (const auto& kv : at->value) {
    const std::string key = key_name(kv.first);
    if (allow_variant && key == "variant") {
      if (kind_of(kv.second) == node_kind::string) check_variant_name(ctx, path / key, kv.second.Scalar());
    } else if (const YAML::Node* values = find_axis(ctx, key)) {
      check_axis_value(ctx, path / key, key, *values, kv.second);
    } else {
      ctx.out.add(position_of(kv.first), path / key,
                  allow_variant ? "unknown key '" + key + "'" : "'" + key + "' is not an axis of this experiment",
                  keys.empty() ? "the experiment has no axes"
                               : suggestion(key, keys, allow_variant ? "allowed keys: " : "its axes are "));
    }
  }
}

void check_expectation(check_context& ctx, const YAML::Node& entry, std::size_t i) {
  const yaml_path path = yaml_path{} / "expect" / i;
  if (!entry.IsMap()) return;
  const YAML::Node metric = field(entry, "metric");
  if (ctx.metrics_known && kind_of(metric) == node_kind::string && !metrics::is_derived(metric.Scalar()) &&
      std::find(ctx.metrics.begin(), ctx.metrics.end(), metric.Scalar()) == ctx.metrics.end()) {
    std::vector<std::string> known;
    for (const auto& d : metrics::derived_metrics()) known.push_back(d.name);
    known.insert(known.end(), ctx.metrics.begin(), ctx.metrics.end());
    std::string hint = suggestion(metric.Scalar(), known, "");
    if (hint.rfind("did you mean", 0) != 0)
      hint = "use a derived metric such as 'load_wavefronts_per_request' or one of the "
             "experiment's metrics";
    ctx.out.at_value(ctx.root, path / "metric", "unknown metric '" + metric.Scalar() + "'", hint);
  } else if (ctx.metrics_known && kind_of(metric) == node_kind::string && metrics::is_derived(metric.Scalar()) &&
             metric.Scalar().rfind("predicted_", 0) != 0) {
    // A derived metric needs its counters among those collected, or the expectation could
    // never be judged and would pass in silence.
    std::map<std::string, double> raw;
    for (const auto& m : ctx.metrics) raw[m] = 1;
    const auto derived = metrics::derive(raw, 4);
    if (derived.count(metric.Scalar()) == 0) {
      const YAML::Node listed = field(ctx.root, "metrics");
      const std::string set = listed && listed.IsScalar() ? "'" + listed.Scalar() + "'" : "the listed metrics";
      ctx.out.at_value(ctx.root, path / "metric",
                       "'" + metric.Scalar() + "' is not collected by this experiment (metrics: " + set +
                           " lacks its counters), so the expectation could never be checked",
                       "collect the counters it needs (metrics: bank_conflicts), or remove the expectation");
    }
  }
  for (const auto& [j, name] : string_items(field(entry, "variants")))
    check_variant_name(ctx, path / "variants" / j, name);
  check_assignment(ctx, path / "where", false);
  const YAML::Node between = field(entry, "between");
  if (between.IsSequence() && between.size() == 2) {
    const auto lo = to_number(between[0]), hi = to_number(between[1]);
    if (lo && hi && *lo > *hi)
      ctx.out.at_value(ctx.root, path / "between",
                       "low bound " + between[0].Scalar() + " is above high bound " + between[1].Scalar(),
                       "write [" + between[1].Scalar() + ", " + between[0].Scalar() + "]");
  }
}

} // namespace

void check_filters(check_context& ctx) {
  const YAML::Node exclude = field(ctx.root, "exclude");
  if (exclude.IsSequence())
    for (std::size_t i = 0; i < exclude.size(); ++i) check_assignment(ctx, yaml_path{} / "exclude" / i, true);
  const YAML::Node expect = field(ctx.root, "expect");
  if (expect.IsSequence())
    for (std::size_t i = 0; i < expect.size(); ++i) check_expectation(ctx, expect[i], i);
}

} // namespace bb::config::detail
