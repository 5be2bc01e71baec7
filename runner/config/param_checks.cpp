#include "runner/config/param_checks.hpp"

#include <algorithm>
#include <cctype>

#include <yaml-cpp/yaml.h>

#include "runner/config/yaml_locate.hpp"
#include "runner/registry/param_check.hpp"

namespace bb::config {

namespace {

/// The parameter a refusal names first ("tile = 24 is not one of ..." names tile); "" if none.
std::string named_parameter(const std::string& what, const nlohmann::json& params) {
  std::string named;
  std::size_t first = std::string::npos;
  for (const auto& item : params.items()) {
    const std::string& key = item.key();
    for (std::size_t at = what.find(key + " = "); at != std::string::npos; at = what.find(key + " = ", at + 1)) {
      const bool word_start = at == 0 ||
                              (std::isalnum(static_cast<unsigned char>(what[at - 1])) == 0 && what[at - 1] != '_');
      if (!word_start) continue;
      if (at < first) {
        first = at;
        named = key;
      }
      break;
    }
  }
  return named;
}

} // namespace

std::size_t check_parameters(const experiment& exp, const registry& reg) {
  detail::report rep(exp.path);
  YAML::Node root;
  try {
    root = YAML::Load(exp.text);
  } catch (const YAML::Exception&) { // loaded once already; positions are a nicety here
  }
  std::size_t checked = 0;
  for (const auto& c : expand(exp)) {
    const variant_info* v = reg.find_variant(exp.family, c.variant);
    if (v == nullptr) continue; // the loader has refused an unknown variant already
    try {
      if (check_parameters(*v, c.params)) ++checked;
    } catch (const unsupported_parameter& e) {
      const std::string what = e.what();
      const std::string name = named_parameter(what, c.params);
      const auto axis = std::find_if(exp.axes.begin(), exp.axes.end(),
                                     [&](const config::axis& a) { return a.name == name; });
      detail::yaml_path path;
      if (axis != exp.axes.end()) {
        const auto value = std::find(axis->values.begin(), axis->values.end(), c.params.at(name));
        path = path / "axes" / name / static_cast<std::size_t>(value - axis->values.begin());
      } else {
        const auto at = std::find(exp.variants.begin(), exp.variants.end(), c.variant);
        path = path / "variants" / static_cast<std::size_t>(at - exp.variants.begin());
      }
      rep.at_value(root, path, "the " + exp.family + " kernels refuse this: " + what,
                   "the run would store these configurations as unsupported; drop the value, or leave the "
                   "combination out with an `exclude:` entry");
    }
  }
  if (!rep.empty()) rep.raise();
  return checked;
}

} // namespace bb::config
