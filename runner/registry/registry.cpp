#include "runner/registry/registry.hpp"

#include <algorithm>

namespace bb {

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
