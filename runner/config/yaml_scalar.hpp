#pragma once
/// YAML 1.2 core-schema typing of yaml-cpp nodes. yaml-cpp keeps every scalar as text; this
/// decides what a plain scalar means, so `20` is an integer and `"20"` a string.
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

namespace bb::config::detail {

enum class node_kind { missing, null, boolean, integer, number, string, list, map };

/// The resolved type of a node; quoted and block scalars are always strings.
node_kind kind_of(const YAML::Node& node);

/// What `text` would mean as a plain (unquoted) scalar.
node_kind resolve_plain(const std::string& text);

/// The value of an integer node; nullopt for any other kind.
std::optional<std::int64_t> to_int(const YAML::Node& node);
/// The value of an integer or number node; nullopt for any other kind.
std::optional<double> to_number(const YAML::Node& node);
/// The value of a boolean node; nullopt for any other kind.
std::optional<bool> to_bool(const YAML::Node& node);

/// The node as JSON, scalars typed as kind_of says; lists and maps converted recursively.
nlohmann::json to_json(const YAML::Node& node);

/// How a message names what was found: "'abc'", "the quoted string '20'", "a list", "nothing".
std::string describe_found(const YAML::Node& node);

/// A plain scalar of digits too large for a 64-bit integer.
bool is_oversized_integer(const YAML::Node& node);

} // namespace bb::config::detail
