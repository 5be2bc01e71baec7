#pragma once
/// Paths into a parsed YAML document, their "expect[1].metric" spelling, and positions.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "runner/common/error.hpp"

namespace bb::config::detail {

struct path_step {
  std::string key;       ///< mapping key, when !is_index
  std::size_t index = 0; ///< sequence index, when is_index
  bool is_index = false;
};
using yaml_path = std::vector<path_step>;

/// `path` extended by one mapping key or one sequence index.
yaml_path operator/(yaml_path path, const std::string& key);
yaml_path operator/(yaml_path path, std::size_t index);

/// "expect[1].metric", "axes.n[0]"; "" for the root.
std::string key_text(const yaml_path& path);

/// The value of `key` in a map (its first occurrence), or an undefined node. Unlike
/// yaml-cpp's operator[], never throws on a missing key's child and never inserts.
YAML::Node field(const YAML::Node& map, const std::string& key);

/// A node found by path, with the mapping key that names it (undefined for indices and root).
struct located {
  YAML::Node value;
  YAML::Node key;
};

/// Follows `path` from `root`; the first occurrence wins for a repeated key, as in yaml-cpp.
std::optional<located> locate(const YAML::Node& root, const yaml_path& path);

/// valijson's error context ("<root>", "[expect]", "[1]", ...) as a path, telling keys from
/// indices by the shape of the document.
yaml_path path_from_context(const YAML::Node& root, const std::vector<std::string>& context);

/// 1-based line and column; 0, 0 when the node has no position.
struct position {
  int line = 0;
  int column = 0;
};
position position_of(const YAML::Node& node);
/// Where to point at a value: its own position, or its key's when it is empty (an empty value's
/// mark is wherever the next token happens to be).
position value_position(const located& at);

bool operator==(const path_step& a, const path_step& b);

/// Where an alias (`*name`) is used as a value: yaml-cpp's nodes share the anchored value, so
/// whatever lies in it carries the anchor's position, never the use's.
struct alias_use {
  yaml_path path; ///< the value the alias stands for
  position at;    ///< the `*name` itself
  std::string name;
  position value;  ///< the anchored value's own position (what its node reports)
  int anchor_line; ///< the line of `&name`
};

/// Collects the diagnostics of one file.
class report {
public:
  explicit report(std::string file) : m_file(std::move(file)) {}
  /// A diagnostic inside a value reached through an alias is moved to the alias's use (the
  /// outermost one on its path) and names the anchor's line.
  void note_alias(alias_use use) { m_aliases.push_back(std::move(use)); }
  void add(position pos, const yaml_path& path, std::string message, std::string hint = {});
  /// At the value `path` names in `root`.
  void at_value(const YAML::Node& root, const yaml_path& path, std::string message, std::string hint = {});
  /// At the mapping key that ends `path` (for unknown and duplicate keys).
  void at_key(const YAML::Node& root, const yaml_path& path, std::string message, std::string hint = {});
  [[nodiscard]] bool empty() const { return m_diags.empty(); }
  [[nodiscard]] const std::string& file() const { return m_file; }
  /// Throws config_error with every diagnostic, sorted by line and column, repeats removed.
  [[noreturn]] void raise();

private:
  std::string m_file;
  std::vector<diagnostic> m_diags;
  std::vector<alias_use> m_aliases;
};

} // namespace bb::config::detail
