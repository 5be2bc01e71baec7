#include "config/yaml_scalar.hpp"

#include <charconv>
#include <cmath>
#include <regex>

namespace bb::config::detail {

namespace {

const std::regex k_int_re("[-+]?[0-9]+");
const std::regex k_float_re(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");

// Explicit !!str, quoting ("!") and block scalars turn resolution off; a plain scalar is "?".
bool is_plain(const YAML::Node& node) {
  const std::string& tag = node.Tag();
  return tag == "?" || tag.empty();
}

std::optional<std::int64_t> parse_int(const std::string& s) {
  if (!std::regex_match(s, k_int_re)) return std::nullopt;
  const char* begin = s.data() + (s[0] == '+' ? 1 : 0);
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(begin, s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> parse_float(const std::string& s) {
  if (!std::regex_match(s, k_float_re)) return std::nullopt;
  const double v = std::strtod(s.c_str(), nullptr);
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

} // namespace

node_kind resolve_plain(const std::string& s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return node_kind::null;
  if (s == "true" || s == "True" || s == "TRUE" || s == "false" || s == "False" || s == "FALSE")
    return node_kind::boolean;
  if (parse_int(s)) return node_kind::integer;
  // Digits beyond int64 stay numbers (doubles), as a JSON parser would read them.
  if (parse_float(s)) return node_kind::number;
  return node_kind::string;
}

node_kind kind_of(const YAML::Node& node) {
  if (!node.IsDefined()) return node_kind::missing;
  if (node.IsNull()) return node_kind::null;
  if (node.IsSequence()) return node_kind::list;
  if (node.IsMap()) return node_kind::map;
  if (!is_plain(node)) return node_kind::string;
  return resolve_plain(node.Scalar());
}

std::optional<std::int64_t> to_int(const YAML::Node& node) {
  if (kind_of(node) != node_kind::integer) return std::nullopt;
  return parse_int(node.Scalar());
}

std::optional<double> to_number(const YAML::Node& node) {
  const node_kind k = kind_of(node);
  if (k == node_kind::integer) return static_cast<double>(*parse_int(node.Scalar()));
  if (k == node_kind::number) return parse_float(node.Scalar());
  return std::nullopt;
}

std::optional<bool> to_bool(const YAML::Node& node) {
  if (kind_of(node) != node_kind::boolean) return std::nullopt;
  return node.Scalar()[0] == 't' || node.Scalar()[0] == 'T';
}

nlohmann::json to_json(const YAML::Node& node) {
  switch (kind_of(node)) {
  case node_kind::missing:
  case node_kind::null:
    return nullptr;
  case node_kind::boolean:
    return *to_bool(node);
  case node_kind::integer:
    return *to_int(node);
  case node_kind::number:
    return *to_number(node);
  case node_kind::string:
    return node.Scalar();
  case node_kind::list: {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : node) out.push_back(to_json(item));
    return out;
  }
  case node_kind::map: {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& kv : node) out[kv.first.Scalar()] = to_json(kv.second);
    return out;
  }
  }
  return nullptr;
}

std::string describe_found(const YAML::Node& node) {
  switch (kind_of(node)) {
  case node_kind::missing:
  case node_kind::null:
    return "nothing";
  case node_kind::list:
    return "a list";
  case node_kind::map:
    return "a map";
  case node_kind::string:
    if (!is_plain(node)) return "the quoted string '" + node.Scalar() + "'";
    return "'" + node.Scalar() + "'";
  default:
    return "'" + node.Scalar() + "'";
  }
}

bool is_oversized_integer(const YAML::Node& node) {
  return node.IsScalar() && is_plain(node) && std::regex_match(node.Scalar(), k_int_re) &&
         !parse_int(node.Scalar());
}

} // namespace bb::config::detail
