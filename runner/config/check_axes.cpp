#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>

#include "runner/config/checks.hpp"
#include "runner/config/yaml_adapter.hpp"
#include "runner/config/yaml_scalar.hpp"

namespace bb::config::detail {

namespace {

constexpr std::int64_t k_max_size = std::numeric_limits<std::int32_t>::max();

std::vector<std::string> param_names(const family_info& family) {
  std::vector<std::string> names;
  for (const auto& p : family.params) names.push_back(p.name);
  return names;
}

// A param whose default is an integer is a size or a count: the kernels index with 32-bit ints.
void check_value(check_context& ctx, const param_spec& param, const yaml_path& path, const YAML::Node& value) {
  const node_kind kind = kind_of(value);
  if (kind != node_kind::integer && kind != node_kind::number && kind != node_kind::string)
    return; // the schema has reported it
  const nlohmann::json def = param.default_value;
  const std::string about = "parameter '" + param.name + "' defaults to " + def.dump();
  if (def.is_number_integer()) {
    const auto v = to_int(value);
    if (is_oversized_integer(value) || (v && *v > k_max_size))
      ctx.out.at_value(ctx.root, path, value.Scalar() + " is too large; the limit is 2^31-1 = 2147483647", about);
    else if (!v)
      ctx.out.at_value(ctx.root, path, "expected an integer, got " + describe_found(value), about);
    else if (*v <= 0)
      ctx.out.at_value(ctx.root, path, "expected a positive integer, got " + std::to_string(*v),
                       about + "; sizes start at 1");
  } else if (def.is_number() && kind == node_kind::string) {
    ctx.out.at_value(ctx.root, path, "expected a number, got " + describe_found(value), about);
  } else if (def.is_string() && kind != node_kind::string) {
    ctx.out.at_value(ctx.root, path, "expected a string, got " + describe_found(value), about + "; quote the value");
  }
}

void check_axis_names(check_context& ctx) {
  const YAML::Node axes = field(ctx.root, "axes");
  if (!axes.IsMap()) return;
  for (const auto& kv : axes) {
    const std::string name = key_name(kv.first);
    ctx.axes.emplace_back(name, kv.second);
    if (ctx.family == nullptr) continue;
    const auto& params = ctx.family->params;
    const auto param = std::find_if(params.begin(), params.end(), [&](const param_spec& p) { return p.name == name; });
    const yaml_path path = yaml_path{} / "axes" / name;
    if (param == params.end()) {
      ctx.out.add(position_of(kv.first), path, "family '" + ctx.family->name + "' has no parameter '" + name + "'",
                  suggestion(name, param_names(*ctx.family), "its parameters are "));
      continue;
    }
    if (!kv.second.IsSequence()) continue;
    // Uniqueness is checked here, not by the schema's uniqueItems: valijson compares every pair,
    // which took 12 s for an axis of 3000 sizes.
    std::map<std::string, std::size_t> first_index;
    for (std::size_t i = 0; i < kv.second.size(); ++i) {
      check_value(ctx, *param, path / i, kv.second[i]);
      if (!kv.second[i].IsScalar()) continue;
      const auto [it, fresh] = first_index.emplace(kv.second[i].Scalar(), i);
      if (!fresh)
        ctx.out.at_value(ctx.root, path / i, "'" + kv.second[i].Scalar() + "' is listed more than once",
                         "remove it; it is already axes." + name + "[" + std::to_string(it->second) + "]");
    }
  }
}

void check_zip(check_context& ctx) {
  const YAML::Node zip = field(ctx.root, "zip");
  if (!zip.IsSequence()) return;
  const std::vector<std::string> names = axis_names(ctx);
  std::vector<std::pair<std::string, std::size_t>> zipped; // axis -> its group
  for (std::size_t g = 0; g < zip.size(); ++g) {
    std::vector<std::pair<std::string, std::size_t>> lengths;
    for (const auto& item : string_items(zip[g])) {
      const std::string& name = item.second; // a named copy: clang 14 cannot capture a binding
      const yaml_path path = yaml_path{} / "zip" / g / item.first;
      const auto axis = std::find_if(ctx.axes.begin(), ctx.axes.end(), [&](const auto& a) { return a.first == name; });
      const auto earlier = std::find_if(zipped.begin(), zipped.end(), [&](const auto& z) { return z.first == name; });
      if (axis == ctx.axes.end()) {
        ctx.out.at_value(ctx.root, path, "'" + name + "' is not an axis of this experiment",
                         names.empty() ? "the experiment has no axes" : suggestion(name, names, "its axes are "));
      } else if (earlier != zipped.end() && earlier->second != g) {
        ctx.out.at_value(ctx.root, path,
                         "axis '" + name + "' is already in zip[" + std::to_string(earlier->second) + "]",
                         "an axis may be in one zip group only");
      } else {
        zipped.emplace_back(name, g);
        if (axis->second.IsSequence()) lengths.emplace_back(name, axis->second.size());
      }
    }
    const bool equal = std::all_of(lengths.begin(), lengths.end(),
                                   [&](const auto& l) { return l.second == lengths[0].second; });
    if (equal) continue;
    std::string detail;
    for (const auto& [name, n] : lengths)
      detail += (detail.empty() ? "" : ", ") + name + " has " + std::to_string(n) + (n == 1 ? " value" : " values");
    ctx.out.at_value(ctx.root, yaml_path{} / "zip" / g, "zipped axes must have equal lengths: " + detail,
                     "give every axis of the group the same number of values");
  }
}

} // namespace

std::vector<std::string> axis_names(const check_context& ctx) {
  std::vector<std::string> names;
  for (const auto& a : ctx.axes) names.push_back(a.first);
  return names;
}

void check_axes(check_context& ctx) {
  check_axis_names(ctx);
  check_zip(ctx);
}

} // namespace bb::config::detail
