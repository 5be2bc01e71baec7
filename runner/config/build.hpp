#pragma once
/// Internal steps of loading: the document -> experiment, and the sweep-size limit.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "runner/config/experiment.hpp"
#include "runner/config/yaml_locate.hpp"

namespace bb::config::detail {

/// The experiment a validated document describes (no check is repeated here).
experiment build_experiment(const YAML::Node& root, const family_info& family);

/// The source variants of a validated document with a `source:` block; paths resolved against
/// the folder of `path`.
void build_sources(const YAML::Node& root, const std::string& path, experiment& exp);

/// Configurations expand() gives, counted without expanding: the excludes are walked over the
/// dimensions (and variants) they name alone. `exact` is false when those alone exceed 4,000,000
/// combinations, and `count` is then the size before exclusion.
struct sweep_size {
  std::uint64_t count = 0;
  bool exact = true;
};
sweep_size count_configurations(const experiment& exp);

/// One text for values equal as JSON (1 and 1.0): the key exclude and where entries are looked up by.
std::string canonical_value(const nlohmann::json& value);

/// Canonical text of a number: "31", "0.01", "1e-05".
std::string format_number(double value);

/// The position and value of the first byte that is not valid UTF-8, if any.
struct bad_byte {
  position at;
  unsigned char value = 0;
};
std::optional<bad_byte> first_invalid_utf8(std::string_view text);

/// A problem of the file's bytes that yaml-cpp reports in its own words or not at all: a control
/// byte (NUL and the like), or a line that ends in a lone CR (classic Mac OS line endings).
struct text_problem {
  position at;
  std::string message;
  std::string hint;
};
std::optional<text_problem> first_byte_problem(std::string_view text);

/// The tab in the indentation of the last line that has one, at or before `line` (1-based), if any; YAML
/// indents with spaces only.
std::optional<position> tab_in_indentation(std::string_view text, int line);

} // namespace bb::config::detail
