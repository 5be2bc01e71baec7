#include "runner/config/yaml_scalar.hpp"

#include <charconv>
#include <cmath>

namespace bb::config::detail {

namespace {

// Hand-written scanners, not std::regex: valijson compares list items pairwise, so these run
// O(n^2) times on hostile input, and std::regex made a 200-item list take seconds.
std::size_t skip_digits(const std::string& s, std::size_t i) {
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  return i;
}

std::size_t skip_sign(const std::string& s, std::size_t i) {
  return i < s.size() && (s[i] == '+' || s[i] == '-') ? i + 1 : i;
}

// [-+]?[0-9]+
bool is_int_text(const std::string& s) {
  const std::size_t start = skip_sign(s, 0);
  const std::size_t end = skip_digits(s, start);
  return end > start && end == s.size();
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool is_float_text(const std::string& s) {
  std::size_t i = skip_sign(s, 0);
  const std::size_t int_end = skip_digits(s, i);
  if (int_end > i) {
    i = int_end;
    if (i < s.size() && s[i] == '.') i = skip_digits(s, i + 1);
  } else {
    if (i >= s.size() || s[i] != '.') return false;
    const std::size_t frac_end = skip_digits(s, i + 1);
    if (frac_end == i + 1) return false;
    i = frac_end;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    const std::size_t exp_start = skip_sign(s, i + 1);
    const std::size_t exp_end = skip_digits(s, exp_start);
    if (exp_end == exp_start) return false;
    i = exp_end;
  }
  return i == s.size();
}

// Explicit !!str, quoting ("!") and block scalars turn resolution off; a plain scalar is "?".
bool is_plain(const YAML::Node& node) {
  const std::string& tag = node.Tag();
  return tag == "?" || tag.empty();
}

std::optional<std::int64_t> parse_int(const std::string& s) {
  if (!is_int_text(s)) return std::nullopt;
  const char* begin = s.data() + (s[0] == '+' ? 1 : 0);
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(begin, s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> parse_float(const std::string& s) {
  if (!is_float_text(s)) return std::nullopt;
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
  case node_kind::null: return nullptr;
  case node_kind::boolean: return *to_bool(node);
  case node_kind::integer: return *to_int(node);
  case node_kind::number: return *to_number(node);
  case node_kind::string: return node.Scalar();
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
  case node_kind::null: return "nothing";
  case node_kind::list: return "a list";
  case node_kind::map: return "a map";
  case node_kind::string:
    if (!is_plain(node)) return "the quoted string '" + node.Scalar() + "'";
    return "'" + node.Scalar() + "'";
  default: return "'" + node.Scalar() + "'";
  }
}

bool is_oversized_integer(const YAML::Node& node) {
  return node.IsScalar() && is_plain(node) && is_int_text(node.Scalar()) && !parse_int(node.Scalar());
}

} // namespace bb::config::detail
