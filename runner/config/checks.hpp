#pragma once
/// Checks a JSON Schema cannot express: names against the registry, axes against the family's
/// params, zip lengths, exclude and expect entries against the experiment, repeated mapping keys.
/// Each check looks only at nodes of the shape the schema asks for, so a document with schema
/// errors still gets every other problem reported, without cascades.
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "runner/config/yaml_locate.hpp"
#include "runner/registry/registry.hpp"

namespace bb::config::detail {

struct check_context {
  const YAML::Node& root;
  const registry& reg;
  report& out;
  const family_info* family = nullptr;                  ///< set by check_names when the family is registered
  std::vector<std::string> variants;                    ///< the experiment's variant names, as written
  std::vector<std::pair<std::string, YAML::Node>> axes; ///< axis name -> its list of values
  std::vector<std::string> metrics;                     ///< resolved raw metric names
  bool metrics_known = false;                           ///< false when `metrics:` itself is wrong
  /// axis name -> its values as canonical JSON text, filled on first use: exclude and where
  /// entries are looked up in it, so long exclude lists check in n log n.
  std::map<std::string, std::set<std::string>> axis_values;
  /// axes whose quoted values were reported as used in an integer expression: once per axis
  std::set<std::string> string_axes_reported;
};

/// The experiment's axis names, in the order of the file.
std::vector<std::string> axis_names(const check_context& ctx);

/// family, variants and metrics.
void check_names(check_context& ctx);
/// axes against the family's params, and zip groups.
void check_axes(check_context& ctx);
/// exclude and expect entries.
void check_filters(check_context& ctx);
/// A `source:` block and source variants (maps in `variants`); a missing `family` without one.
void check_source(check_context& ctx);
/// Mapping keys given twice anywhere (yaml-cpp keeps both silently).
/// Refuses documents nested deeper than 32 levels or expanding to more than 200000 nodes
/// (recursive aliases, alias bombs) before anything else walks them. Returns false if refused.
bool check_shape(const YAML::Node& root, report& out);

/// Repeated items in the lists that must not repeat (variants, metrics, zip groups, expect[].variants).
/// Checked here, not by the schema's uniqueItems: valijson compares every pair of items.
void check_unique_items(const YAML::Node& root, report& out);

void check_duplicate_keys(const YAML::Node& root, report& out);

/// The string items of a list node, with their indices; other items are skipped.
std::vector<std::pair<std::size_t, std::string>> string_items(const YAML::Node& list);
/// "did you mean 'x'?" when one candidate is close, else `fallback` + the quoted candidates.
std::string suggestion(const std::string& word, const std::vector<std::string>& candidates,
                       const std::string& fallback);
/// 'a', 'b', 'c'
std::string quoted(const std::vector<std::string>& names);

} // namespace bb::config::detail
