#pragma once
/// Structural validation of an experiment document by valijson against
/// schemas/experiment.schema.json (embedded at build time), with errors in plain English.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "runner/config/yaml_locate.hpp"

namespace bb::config::detail {

/// The embedded schema, parsed once.
const nlohmann::json& experiment_schema();

/// The subschema governing `path` ($refs followed), or nullptr when the schema says nothing.
const nlohmann::json* schema_at(const yaml_path& path);

/// The keys the schema's `properties` list at `path`, sorted.
std::vector<std::string> schema_keys(const yaml_path& path);

/// Validates `root` and adds one diagnostic per problem to `out`.
void validate_schema(const YAML::Node& root, report& out);

/// One valijson error, turned into zero or more diagnostics (schema_messages.cpp).
/// `seen_duplicates` remembers which repeated list items were already reported.
void translate_schema_error(const YAML::Node& root, const yaml_path& path, const std::string& description, report& out,
                            std::vector<std::string>& seen_duplicates);

} // namespace bb::config::detail
