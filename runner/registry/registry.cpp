#include "runner/registry/registry.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace bb {

namespace {

[[noreturn]] void wrong_kind(const char* wanted) {
  throw std::logic_error(std::string("a parameter default read as ") + wanted + " is of another kind");
}

} // namespace

std::int64_t param_default::integer() const {
  if (m_kind != kind::integer) wrong_kind("an integer");
  return m_integer;
}

double param_default::number() const {
  if (m_kind != kind::number) wrong_kind("a number");
  return m_number;
}

bool param_default::boolean() const {
  if (m_kind != kind::boolean) wrong_kind("true or false");
  return m_boolean;
}

const std::string& param_default::text() const {
  if (m_kind != kind::text) wrong_kind("text");
  return m_text;
}

void to_json(nlohmann::json& j, const param_default& value) {
  switch (value.type()) {
  case param_default::kind::integer: j = value.integer(); break;
  case param_default::kind::number: j = value.number(); break;
  case param_default::kind::boolean: j = value.boolean(); break;
  case param_default::kind::text: j = value.text(); break;
  }
}

registry& registry::instance() {
  static registry r;
  return r;
}

void registry::add_family(family_info family) {
  if (find_family(family.name) == nullptr) m_families.push_back(std::move(family));
}

void registry::add_variant(variant_info variant) {
  if (find_variant(variant.family, variant.name) != nullptr)
    throw std::logic_error("variant registered twice: " + variant.id());
  m_variants.push_back(std::move(variant));
}

const family_info* registry::find_family(const std::string& name) const {
  for (const auto& f : m_families)
    if (f.name == name) return &f;
  return nullptr;
}

const variant_info* registry::find_variant(const std::string& family, const std::string& name) const {
  for (const auto& v : m_variants)
    if (v.family == family && v.name == name) return &v;
  return nullptr;
}

std::vector<const family_info*> registry::families() const {
  std::vector<const family_info*> out;
  for (const auto& f : m_families) out.push_back(&f);
  std::sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->name < b->name; });
  return out;
}

std::vector<const variant_info*> registry::variants(const std::string& family) const {
  std::vector<const variant_info*> out;
  for (const auto& v : m_variants)
    if (v.family == family) out.push_back(&v);
  std::sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->name < b->name; });
  return out;
}

variant_registrar::variant_registrar(family_info family, variant_info variant) {
  registry::instance().add_family(std::move(family));
  registry::instance().add_variant(std::move(variant));
}

} // namespace bb
