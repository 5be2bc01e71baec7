#include "runner/config/build.hpp"

#include "runner/common/metrics.hpp"
#include "runner/config/yaml_adapter.hpp"
#include "runner/config/yaml_scalar.hpp"

namespace bb::config::detail {

namespace {

std::vector<std::string> strings(const YAML::Node& list) {
  std::vector<std::string> out;
  for (const auto& item : list) out.push_back(item.IsMap() ? field(item, "name").Scalar() : item.Scalar());
  return out;
}

int int_or(const YAML::Node& node, int fallback) {
  const auto v = to_int(node);
  return v ? static_cast<int>(*v) : fallback; // the schema bounds every repeat field
}

expectation build_expectation(const YAML::Node& entry) {
  expectation e;
  e.metric = field(entry, "metric").Scalar();
  if (field(entry, "variants")) e.variants = strings(field(entry, "variants"));
  if (field(entry, "where")) e.where = to_json(field(entry, "where"));
  if (const YAML::Node claim = field(entry, "claim")) e.claim = claim.Scalar();
  if (const YAML::Node between = field(entry, "between")) {
    e.low = to_number(between[0]);
    e.high = to_number(between[1]);
    e.text = e.metric + " in [" + format_number(*e.low) + ", " + format_number(*e.high) + "]";
  } else if (const YAML::Node below = field(entry, "below")) {
    e.high = to_number(below);
    e.high_inclusive = false;
    e.text = e.metric + " < " + format_number(*e.high);
  } else {
    e.low = to_number(field(entry, "above"));
    e.low_inclusive = false;
    e.text = e.metric + " > " + format_number(*e.low);
  }
  const position pos = position_of(entry);
  e.line = pos.line;
  e.column = pos.column;
  return e;
}

} // namespace

experiment build_experiment(const YAML::Node& root, const family_info& family) {
  experiment exp;
  exp.name = field(root, "name").Scalar();
  exp.description = field(root, "description").Scalar();
  if (const YAML::Node claim = field(root, "claim")) exp.claim = claim.Scalar();
  exp.family = field(root, "family") ? field(root, "family").Scalar() : family.name;
  exp.variants = strings(field(root, "variants"));
  for (const auto& param : family.params) exp.defaults[param.name] = param.default_value;
  for (const auto& kv : field(root, "axes")) {
    axis a{key_name(kv.first), {}};
    for (const auto& value : kv.second) a.values.push_back(to_json(value));
    exp.axes.push_back(std::move(a));
  }
  for (const auto& group : field(root, "zip")) exp.zip.push_back(strings(group));
  for (const auto& entry : field(root, "exclude")) exp.exclude.push_back(to_json(entry));
  const YAML::Node metrics = field(root, "metrics");
  exp.metrics = !metrics             ? metrics::metric_list::default_list()
                : metrics.IsScalar() ? metrics::metric_list::named(*metrics::find_set(metrics.Scalar()))
                                     : metrics::metric_list::listed(strings(metrics));
  const YAML::Node repeat = field(root, "repeat");
  exp.repeat.warmup = int_or(field(repeat, "warmup"), exp.repeat.warmup);
  exp.repeat.samples = int_or(field(repeat, "samples"), exp.repeat.samples);
  exp.repeat.placements = int_or(field(repeat, "placements"), exp.repeat.placements);
  exp.repeat.counter_launches = int_or(field(repeat, "counter_launches"), exp.repeat.counter_launches);
  if (const auto seed = to_int(field(root, "seed"))) exp.seed = static_cast<std::uint64_t>(*seed);
  if (const auto limit = to_number(field(root, "time_limit_s"))) exp.time_limit_s = *limit;
  if (const YAML::Node lines = field(root, "lines")) {
    if (lines.IsScalar()) {
      exp.lines = lines.as<bool>(false);
    } else {
      exp.lines = true;
      exp.lines_for = strings(lines);
    }
  }
  for (const auto& entry : field(root, "expect")) exp.expectations.push_back(build_expectation(entry));
  return exp;
}

std::string canonical_value(const nlohmann::json& value) {
  return value.is_number() ? nlohmann::json(value.get<double>()).dump() : value.dump();
}

} // namespace bb::config::detail
