#include "runner/config/schema_validate.hpp"

#include <memory>

// GCC 12 at -O2 reports a false -Wrestrict inside std::string::replace as inlined from
// valijson's json_pointer.hpp (a known GCC 12 false positive); our code is not involved.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#include "runner/config/yaml_adapter.hpp"

namespace bb::embedded {
extern const char experiment_schema[];
}

namespace bb::config::detail {

namespace {

const nlohmann::json* resolve(const nlohmann::json* s) {
  // Bounded, so a schema whose $ref points at itself cannot loop forever.
  for (int i = 0; i < 16 && s != nullptr && s->is_object() && s->contains("$ref"); ++i) {
    const std::string ref = s->at("$ref").get<std::string>();
    if (ref.rfind("#/", 0) != 0) return nullptr;
    const nlohmann::json::json_pointer pointer(ref.substr(1));
    s = experiment_schema().contains(pointer) ? &experiment_schema().at(pointer) : nullptr;
  }
  return s;
}

const valijson::Schema& compiled_schema() {
  static const std::unique_ptr<valijson::Schema> schema = [] {
    auto s = std::make_unique<valijson::Schema>(); // not copyable or movable
    valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
    const valijson::adapters::NlohmannJsonAdapter adapter(experiment_schema());
    parser.populateSchema(adapter, *s);
    return s;
  }();
  return *schema;
}

} // namespace

const nlohmann::json& experiment_schema() {
  static const nlohmann::json schema = nlohmann::json::parse(bb::embedded::experiment_schema);
  return schema;
}

const nlohmann::json* schema_at(const yaml_path& path) {
  const nlohmann::json* s = resolve(&experiment_schema());
  for (const auto& step : path) {
    if (s == nullptr || !s->is_object()) return nullptr;
    // A key of several forms (oneOf/anyOf of types): a step into a list or map goes through the
    // branch of that kind.
    for (const char* keyword : {"oneOf", "anyOf"})
      if (!s->contains("type") && s->contains(keyword))
        for (const auto& branch : s->at(keyword))
          if (branch.is_object() && branch.value("type", "") == (step.is_index ? "array" : "object")) s = &branch;
    if (step.is_index) {
      s = s->contains("items") ? &s->at("items") : nullptr;
    } else if (s->contains("properties") && s->at("properties").contains(step.key)) {
      s = &s->at("properties").at(step.key);
    } else if (s->contains("additionalProperties") && s->at("additionalProperties").is_object()) {
      s = &s->at("additionalProperties");
    } else {
      return nullptr;
    }
    s = resolve(s);
  }
  return s;
}

std::vector<std::string> schema_keys(const yaml_path& path) {
  std::vector<std::string> keys;
  const nlohmann::json* s = schema_at(path);
  if (s != nullptr && s->is_object() && s->contains("properties"))
    for (const auto& [key, sub] : s->at("properties").items()) keys.push_back(key);
  return keys;
}

void validate_schema(const YAML::Node& root, report& out) {
  valijson::Validator validator; // strict types: the adapter reports real YAML types
  valijson::ValidationResults results;
  if (validator.validate(compiled_schema(), yaml_adapter(root), &results)) return;
  std::vector<std::string> seen_duplicates;
  valijson::ValidationResults::Error error;
  while (results.popError(error))
    translate_schema_error(root, path_from_context(root, error.context), error.description, out, seen_duplicates);
}

} // namespace bb::config::detail
