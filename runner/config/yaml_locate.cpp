#include "runner/config/yaml_locate.hpp"

#include <algorithm>
#include <tuple>

#include "runner/config/yaml_adapter.hpp"

namespace bb::config::detail {

yaml_path operator/(yaml_path path, const std::string& key) {
  path.push_back({key, 0, false});
  return path;
}

yaml_path operator/(yaml_path path, std::size_t index) {
  path.push_back({{}, index, true});
  return path;
}

std::string key_text(const yaml_path& path) {
  std::string out;
  for (const auto& step : path) {
    if (step.is_index) {
      out += '[' + std::to_string(step.index) + ']';
    } else {
      if (!out.empty()) out += '.';
      out += step.key;
    }
  }
  return out;
}

namespace {

std::optional<located> child(const YAML::Node& node, const path_step& step) {
  if (!node.IsDefined()) return std::nullopt;
  if (step.is_index) {
    if (!node.IsSequence() || step.index >= node.size()) return std::nullopt;
    return located{node[step.index], YAML::Node()};
  }
  if (!node.IsMap()) return std::nullopt;
  for (const auto& kv : node)
    if (key_name(kv.first) == step.key) return located{kv.second, kv.first};
  return std::nullopt;
}

} // namespace

YAML::Node field(const YAML::Node& map, const std::string& key) {
  const auto at = child(map, path_step{key, 0, false});
  return at ? at->value : YAML::Node(YAML::NodeType::Undefined);
}

std::optional<located> locate(const YAML::Node& root, const yaml_path& path) {
  located at{root, YAML::Node()};
  for (const auto& step : path) {
    auto next = child(at.value, step);
    if (!next) return std::nullopt;
    // Node::operator= would copy the child's content into the root; reset() rebinds.
    at.value.reset(next->value);
    at.key.reset(next->key);
  }
  return at;
}

yaml_path path_from_context(const YAML::Node& root, const std::vector<std::string>& context) {
  yaml_path path;
  YAML::Node node = root;
  for (const auto& part : context) {
    if (part.size() < 2 || part.front() != '[' || part.back() != ']') continue; // "<root>"
    const std::string inner = part.substr(1, part.size() - 2);
    path_step step{inner, 0, false};
    if (node.IsSequence()) {
      step.is_index = true;
      step.index = static_cast<std::size_t>(std::stoull(inner));
    }
    path.push_back(step);
    auto next = child(node, step);
    node.reset(next ? next->value : YAML::Node(YAML::NodeType::Undefined));
  }
  return path;
}

position position_of(const YAML::Node& node) {
  if (!node.IsDefined()) return {};
  const YAML::Mark mark = node.Mark();
  if (mark.line < 0 || mark.column < 0) return {};
  return {mark.line + 1, mark.column + 1};
}

position value_position(const located& at) {
  if (at.key.IsDefined() && (at.value.IsNull() || !at.value.IsDefined())) return position_of(at.key);
  return position_of(at.value);
}

bool operator==(const path_step& a, const path_step& b) {
  return a.is_index == b.is_index && (a.is_index ? a.index == b.index : a.key == b.key);
}

void report::add(position pos, const yaml_path& path, std::string message, std::string hint) {
  // Strictly below an alias, every position is inside the anchored text; at the alias itself,
  // only the value's own position is (its key is written at the use).
  const alias_use* through = nullptr;
  for (const auto& use : m_aliases) {
    if (use.path.size() > path.size() || !std::equal(use.path.begin(), use.path.end(), path.begin())) continue;
    if (use.path.size() == path.size() && (pos.line != use.value.line || pos.column != use.value.column)) continue;
    if (through == nullptr || use.path.size() < through->path.size()) through = &use;
  }
  if (through != nullptr) {
    pos = through->at;
    message += "; in the value of alias *" + through->name + ", defined at line " +
               std::to_string(through->anchor_line);
  }
  m_diags.push_back({m_file, pos.line, pos.column, key_text(path), std::move(message), std::move(hint)});
}

void report::at_value(const YAML::Node& root, const yaml_path& path, std::string message, std::string hint) {
  // yaml-cpp gives some empty values no mark (a `~` in a flow list): point at the nearest
  // enclosing node that has one.
  position pos;
  for (yaml_path up = path; pos.line == 0; up.pop_back()) {
    if (const auto at = locate(root, up)) pos = value_position(*at);
    if (up.empty()) break;
  }
  add(pos, path, std::move(message), std::move(hint));
}

void report::at_key(const YAML::Node& root, const yaml_path& path, std::string message, std::string hint) {
  const auto at = locate(root, path);
  add(at ? position_of(at->key) : position{}, path, std::move(message), std::move(hint));
}

void report::raise() {
  auto order = [](const diagnostic& d) { return std::tie(d.line, d.column, d.key, d.message, d.hint); };
  std::stable_sort(m_diags.begin(), m_diags.end(),
                   [&](const diagnostic& a, const diagnostic& b) { return order(a) < order(b); });
  m_diags.erase(std::unique(m_diags.begin(), m_diags.end(),
                            [&](const diagnostic& a, const diagnostic& b) { return order(a) == order(b); }),
                m_diags.end());
  throw config_error(std::move(m_diags));
}

} // namespace bb::config::detail
