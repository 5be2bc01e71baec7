// Turns valijson's error descriptions into the messages users see. valijson reports each failure
// once where it happens and again, as "Failed to validate ...", at every enclosing level; only the
// first is kept. What the message says comes from the schema itself (types, bounds, keys,
// "x-expected"), so the schema stays the one definition of the format.
#include <algorithm>
#include <regex>

#include "runner/common/suggest.hpp"
#include "runner/config/schema_validate.hpp"
#include "runner/config/yaml_scalar.hpp"

namespace bb::config::detail {

namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

std::string quoted_list(const std::vector<std::string>& names, const char* last_joiner) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? last_joiner : ", ";
    out += "'" + names[i] + "'";
  }
  return out;
}

std::string type_phrase(const std::string& type) {
  if (type == "integer") return "an integer";
  if (type == "number") return "a number";
  if (type == "string") return "a string";
  if (type == "array") return "a list";
  if (type == "object") return "a map";
  if (type == "boolean") return "true or false";
  return type;
}

std::string expected_types(const nlohmann::json* schema);

// The forms a oneOf/anyOf key accepts, from its branches: "x-expected" where the schema gives it,
// else each branch's types ("true or false, or a list").
std::string expected_branches(const nlohmann::json& schema) {
  if (schema.contains("x-expected")) return schema.at("x-expected").get<std::string>();
  const char* keyword = schema.contains("oneOf") ? "oneOf" : "anyOf";
  std::string out;
  const auto& branches = schema.at(keyword);
  for (std::size_t i = 0; i < branches.size(); ++i) {
    if (i > 0) out += i + 1 == branches.size() ? ", or " : ", ";
    out += expected_types(&branches[i]);
  }
  return out;
}

bool has_branches(const nlohmann::json* schema) {
  return schema != nullptr && (schema->contains("oneOf") || schema->contains("anyOf")) && !schema->contains("type");
}

// Whether the node is of a type one of the branches takes: then that branch's own error (an empty
// list, a bad item) is the one to report, not the type.
bool some_branch_takes(const nlohmann::json& schema, const YAML::Node& node) {
  const char* keyword = schema.contains("oneOf") ? "oneOf" : "anyOf";
  for (const auto& branch : schema.at(keyword)) {
    if (!branch.contains("type")) return true; // a branch on keys, not types
    const auto& type = branch.at("type");
    const auto takes = [&](const std::string& t) {
      if (t == "array") return node.IsSequence();
      if (t == "object") return node.IsMap();
      if (t == "boolean") return kind_of(node) == node_kind::boolean;
      if (t == "string") return kind_of(node) == node_kind::string;
      if (t == "integer") return kind_of(node) == node_kind::integer;
      if (t == "number") return kind_of(node) == node_kind::integer || kind_of(node) == node_kind::number;
      if (t == "null") return kind_of(node) == node_kind::null;
      return false;
    };
    if (type.is_string() ? takes(type.get<std::string>())
                         : std::any_of(type.begin(), type.end(),
                                       [&](const nlohmann::json& t) { return takes(t.get<std::string>()); }))
      return true;
  }
  return false;
}

std::string expected_types(const nlohmann::json* schema) {
  if (has_branches(schema)) return expected_branches(*schema);
  if (schema == nullptr || !schema->contains("type")) return "another type";
  const auto& type = schema->at("type");
  if (type.is_string()) return type_phrase(type.get<std::string>());
  std::string out;
  for (std::size_t i = 0; i < type.size(); ++i) {
    if (i > 0) out += i + 1 == type.size() ? " or " : ", ";
    out += type_phrase(type[i].get<std::string>());
  }
  return out;
}

std::string schema_number(const nlohmann::json* schema, const char* keyword) {
  return schema != nullptr && schema->contains(keyword) ? schema->at(keyword).dump() : "?";
}

YAML::Node node_at(const YAML::Node& root, const yaml_path& path) {
  const auto at = locate(root, path);
  return at ? at->value : YAML::Node();
}

void type_error(const YAML::Node& root, const yaml_path& path, report& out) {
  const YAML::Node node = node_at(root, path);
  const nlohmann::json* schema = schema_at(path);
  if (has_branches(schema) && !path.empty() && some_branch_takes(*schema, node)) return;
  const std::string expected = expected_types(schema);
  if (path.empty()) {
    out.add(position_of(node), path, "expected a map of experiment keys, got " + describe_found(node));
    return;
  }
  std::string hint;
  if (is_oversized_integer(node))
    hint = "integers must fit in 64 bits";
  else if ((expected == "an integer" || expected == "a number") && kind_of(node) == node_kind::string &&
           node.Tag() == "!" && resolve_plain(node.Scalar()) != node_kind::string)
    hint = "remove the quotes"; // "20" where a number belongs
  else if (expected == "a string" && node.IsScalar())
    hint = "put it in quotes to make it a string"; // 123 or true where a name belongs
  out.at_value(root, path, "expected " + expected + ", got " + describe_found(node), hint);
}

void unknown_keys(const YAML::Node& root, const yaml_path& path, report& out) {
  const YAML::Node node = node_at(root, path);
  const std::vector<std::string> allowed = schema_keys(path);
  if (!node.IsMap()) return;
  for (const auto& kv : node) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : YAML::Dump(kv.first);
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string hint = did_you_mean(key, allowed);
    if (hint.empty()) hint = "allowed keys: " + quoted_list(allowed, ", ");
    out.add(position_of(kv.first), path / key, "unknown key '" + key + "'", hint);
  }
}

void missing_key(const YAML::Node& root, const yaml_path& path, const std::string& key, report& out) {
  const nlohmann::json* schema = schema_at(path);
  // Keys required only inside a oneOf branch are reported by one_of_error.
  if (schema == nullptr || !schema->contains("required")) return;
  const auto& required = schema->at("required");
  if (std::find(required.begin(), required.end(), key) == required.end()) return;
  const auto at = locate(root, path);
  out.add(at ? value_position(*at) : position{}, path / key, "missing required key '" + key + "'",
          "add '" + key + ": ...'");
}

void one_of_error(const YAML::Node& root, const yaml_path& path, report& out) {
  const YAML::Node node = node_at(root, path);
  const nlohmann::json* schema = schema_at(path);
  if (schema == nullptr || !schema->contains("oneOf") || !node.IsMap()) return;
  std::vector<std::string> choices, given;
  for (const auto& branch : schema->at("oneOf"))
    for (const auto& key : branch.value("required", nlohmann::json::array())) {
      choices.push_back(key.get<std::string>());
      if (field(node, choices.back()).IsDefined()) given.push_back(choices.back());
    }
  if (choices.empty()) return; // branches on types: reported by type_error
  if (given.empty()) {
    out.at_value(root, path, "needs one of " + quoted_list(choices, " or "), "add exactly one of them");
  } else if (given.size() > 1) {
    out.at_key(root, path / given[1], quoted_list(given, " and ") + " cannot be combined",
               "keep exactly one of " + quoted_list(choices, " or "));
  }
}

void duplicate_item(const YAML::Node& root, const yaml_path& path, const std::string& description, report& out,
                    std::vector<std::string>& seen) {
  static const std::regex indexes_re(R"(#(\d+) and #(\d+))");
  std::smatch m;
  if (!std::regex_search(description, m, indexes_re)) return;
  const yaml_path first = path / static_cast<std::size_t>(std::stoull(m[1]));
  const yaml_path again = path / static_cast<std::size_t>(std::stoull(m[2]));
  // valijson reports every pair; name each repeat once, against its first occurrence.
  if (std::find(seen.begin(), seen.end(), key_text(again)) != seen.end()) return;
  seen.push_back(key_text(again));
  const YAML::Node item = node_at(root, again);
  const std::string text = item.IsScalar() ? item.Scalar() : YAML::Dump(item);
  out.at_value(root, again, "'" + text + "' is listed more than once", "remove it; it is already " + key_text(first));
}

void size_error(const YAML::Node& root, const yaml_path& path, const std::string& unit, report& out) {
  const YAML::Node node = node_at(root, path);
  const nlohmann::json* schema = schema_at(path);
  const bool is_list = unit == "items";
  const char* min_kw = is_list ? "minItems" : "minProperties";
  const char* max_kw = is_list ? "maxItems" : "maxProperties";
  const std::string lo = schema_number(schema, min_kw), hi = schema_number(schema, max_kw);
  const std::string got = std::to_string(node.size());
  if (node.size() == 0) {
    out.at_value(root, path, is_list ? "must not be an empty list" : "must not be an empty map");
  } else if (lo == hi && lo == "1" && !is_list && node.IsMap() && schema != nullptr && schema->contains("properties")) {
    std::vector<std::string> allowed, given;
    for (const auto& [key, value] : schema->at("properties").items()) allowed.push_back(key);
    for (const auto& kv : node) given.push_back(kv.first.Scalar());
    out.at_value(root, path,
                 "takes one key of " + quoted_list(allowed, " or ") + ", got " + got + ": " +
                     quoted_list(given, " and "),
                 "keep one of them");
  } else if (lo == hi) {
    out.at_value(root, path, "expected exactly " + lo + " " + unit + ", got " + got);
  } else if (schema != nullptr && schema->contains(min_kw) && node.size() < schema->at(min_kw).get<std::size_t>()) {
    out.at_value(root, path, "expected at least " + lo + " " + unit + ", got " + got);
  } else {
    out.at_value(root, path, "expected at most " + hi + " " + unit + ", got " + got);
  }
}

// "did you mean": a name the schema lists under "x-aliases" (half for float16), else the closest
// of the allowed strings.
std::string enum_hint(const nlohmann::json* schema, const YAML::Node& node) {
  if (schema == nullptr || kind_of(node) != node_kind::string) return {};
  const std::string& word = node.Scalar();
  if (const auto aliases = schema->find("x-aliases"); aliases != schema->end() && aliases->contains(word))
    return "did you mean '" + aliases->at(word).get<std::string>() + "'?";
  std::vector<std::string> allowed;
  for (const auto& v : schema->value("enum", nlohmann::json::array()))
    if (v.is_string()) allowed.push_back(v.get<std::string>());
  return did_you_mean(word, allowed);
}

} // namespace

void translate_schema_error(const YAML::Node& root, const yaml_path& path, const std::string& description, report& out,
                            std::vector<std::string>& seen_duplicates) {
  const std::string& d = description;
  const nlohmann::json* schema = schema_at(path);
  const YAML::Node node = node_at(root, path);
  static const std::regex missing_re(R"(Missing required property '(.*)'\.)");
  std::smatch m;
  if (starts_with(d, "Failed to validate item #") ||
      starts_with(d, "Failed to validate against schema associated with") ||
      starts_with(d, "Failed to validate against additional properties schema") ||
      starts_with(d, "Failed to validate against any schemas allowed by anyOf") ||
      starts_with(d, "Failed to validate against a conditional schema") ||
      starts_with(d, "Failed to validate against child schema #")) {
    return; // an echo of an error already reported at the nested key
  }
  if (starts_with(d, "Value type not permitted")) {
    type_error(root, path, out);
  } else if (std::regex_match(d, m, missing_re)) {
    missing_key(root, path, m[1], out);
  } else if (starts_with(d, "Object contains a property that could not be validated")) {
    unknown_keys(root, path, out);
  } else if (starts_with(d, "Failed to validate against any child schemas allowed by oneOf") ||
             starts_with(d, "Failed to validate against exactly one child schema")) {
    one_of_error(root, path, out);
  } else if (starts_with(d, "Failed to match regex")) {
    const std::string expected = schema != nullptr && schema->contains("x-expected")
                                     ? schema->at("x-expected").get<std::string>()
                                     : "a value matching " + schema_number(schema, "pattern");
    out.at_value(root, path, "expected " + expected + ", got " + describe_found(node));
  } else if (starts_with(d, "Failed to match against any enum values")) {
    const std::string expected = schema != nullptr && schema->contains("x-expected")
                                     ? schema->at("x-expected").get<std::string>()
                                     : "one of " +
                                           (schema != nullptr ? schema->value("enum", nlohmann::json()).dump() : "?");
    out.at_value(root, path, "expected " + expected + ", got " + describe_found(node), enum_hint(schema, node));
  } else if (starts_with(d, "String should be no fewer than")) {
    out.at_value(root, path, "must not be empty");
  } else if (starts_with(d, "Array should contain")) {
    size_error(root, path, "items", out);
  } else if (starts_with(d, "Object should have")) {
    size_error(root, path, "keys", out);
  } else if (starts_with(d, "Expected number greater than or equal to")) {
    out.at_value(root, path, "must be at least " + schema_number(schema, "minimum") + ", got " + node.Scalar());
  } else if (starts_with(d, "Expected number less than or equal to")) {
    out.at_value(root, path, "must be at most " + schema_number(schema, "maximum") + ", got " + node.Scalar());
  } else if (starts_with(d, "Elements at indexes")) {
    duplicate_item(root, path, d, out, seen_duplicates);
  } else {
    out.at_value(root, path, d); // not expected with this schema; valijson's words are kept
  }
}

} // namespace bb::config::detail
