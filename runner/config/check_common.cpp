// Helpers shared by the checks, and the one check that needs no registry: repeated keys.
#include <algorithm>
#include <map>

#include "runner/common/suggest.hpp"
#include "runner/config/checks.hpp"
#include "runner/config/yaml_adapter.hpp"
#include "runner/config/yaml_scalar.hpp"

namespace bb::config::detail {

std::vector<std::pair<std::size_t, std::string>> string_items(const YAML::Node& list) {
  std::vector<std::pair<std::size_t, std::string>> out;
  if (!list.IsSequence()) return out;
  for (std::size_t i = 0; i < list.size(); ++i)
    if (kind_of(list[i]) == node_kind::string) out.emplace_back(i, list[i].Scalar());
  return out;
}

std::string quoted(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "'" : ", '") + n + "'";
  return out;
}

std::string suggestion(const std::string& word, const std::vector<std::string>& candidates,
                       const std::string& fallback) {
  std::string hint = did_you_mean(word, candidates);
  if (hint.empty() && !candidates.empty()) hint = fallback + quoted(candidates);
  return hint;
}

namespace {
void unique_items(const YAML::Node& root, const YAML::Node& list, const yaml_path& path, report& out) {
  if (!list.IsSequence()) return;
  std::map<std::string, std::size_t> first;
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!list[i].IsScalar()) continue;
    const auto [it, fresh] = first.emplace(list[i].Scalar(), i);
    if (!fresh)
      out.at_value(root, path / i, "'" + list[i].Scalar() + "' is listed more than once",
                   "remove it; it is already " + key_text(path / it->second));
  }
}
} // namespace

void check_unique_items(const YAML::Node& root, report& out) {
  if (!root.IsMap()) return;
  unique_items(root, field(root, "variants"), yaml_path{} / "variants", out);
  unique_items(root, field(root, "metrics"), yaml_path{} / "metrics", out);
  const YAML::Node zip = field(root, "zip");
  if (zip.IsSequence())
    for (std::size_t g = 0; g < zip.size(); ++g) unique_items(root, zip[g], yaml_path{} / "zip" / g, out);
  const YAML::Node expect = field(root, "expect");
  if (expect.IsSequence())
    for (std::size_t i = 0; i < expect.size(); ++i)
      if (expect[i].IsMap())
        unique_items(root, field(expect[i], "variants"), yaml_path{} / "expect" / i / "variants", out);
}

bool check_shape(const YAML::Node& root, report& out) {
  constexpr std::size_t k_max_depth = 32;
  constexpr std::size_t k_max_nodes = 200000;
  // Aliases share nodes, so a recursive alias or an alias bomb shows here as endless nodes.
  std::vector<std::pair<YAML::Node, std::size_t>> pending{{root, 0}};
  std::size_t nodes = 0;
  while (!pending.empty()) {
    const auto [node, depth] = pending.back();
    pending.pop_back();
    if (++nodes > k_max_nodes || depth > k_max_depth) {
      out.add(position_of(node), {},
              nodes > k_max_nodes ? "the document expands to more than 200000 values"
                                  : "the document nests deeper than 32 levels",
              "an experiment file is small and flat; look for a recursive or repeated alias (*name)");
      return false;
    }
    if (node.IsSequence())
      for (const auto& child : node) pending.emplace_back(child, depth + 1);
    else if (node.IsMap())
      for (const auto& kv : node) {
        pending.emplace_back(kv.first, depth + 1);
        pending.emplace_back(kv.second, depth + 1);
      }
  }
  return true;
}

void check_duplicate_keys(const YAML::Node& node, report& out) {
  // Iterative walk with explicit paths; the first occurrence of a key is the one yaml-cpp uses.
  std::vector<std::pair<YAML::Node, yaml_path>> pending{{node, {}}};
  while (!pending.empty()) {
    const auto [current, path] = pending.back();
    pending.pop_back();
    if (current.IsSequence()) {
      for (std::size_t i = 0; i < current.size(); ++i) pending.emplace_back(current[i], path / i);
    } else if (current.IsMap()) {
      std::vector<std::pair<std::string, int>> seen;
      for (const auto& kv : current) {
        const std::string key = key_name(kv.first);
        const auto first = std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == key; });
        if (first != seen.end())
          out.add(position_of(kv.first), path / key, "duplicate key '" + key + "'",
                  "it is already set at line " + std::to_string(first->second) + "; remove one");
        else
          seen.emplace_back(key, position_of(kv.first).line);
        pending.emplace_back(kv.second, path / key);
      }
    }
  }
}

} // namespace bb::config::detail
