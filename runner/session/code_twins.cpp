#include "runner/session/code_twins.hpp"

#include <filesystem>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "runner/common/error.hpp"
#include "runner/common/path_text.hpp"
#include "runner/registry/registry.hpp"

namespace bb::session {

namespace {

std::string shown(const std::string& path) { return shown_path(relative_to_working_folder(path)); }

std::string text_of(const nlohmann::json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

} // namespace

std::string default_code_twins_dir() { return std::string(BB_SOURCE_TREE) + "/bench/code_twins"; }

code_twins::code_twins(std::string dir) : m_dir(std::move(dir)) {}

const code_twins::loaded& code_twins::family(const std::string& name) {
  const auto known = m_families.find(name);
  if (known != m_families.end()) return known->second;
  loaded& l = m_families[name];
  const std::string path = (std::filesystem::path(m_dir) / (name + ".yaml")).string();
  std::error_code ec;
  if (!std::filesystem::is_directory(m_dir, ec))
    l.missing = fmt::format("the twins' folder {} is not there (bankbench was built from another tree: --code-twins "
                            "DIR names one)",
                            shown(m_dir));
  else if (!std::filesystem::is_regular_file(path, ec))
    l.missing = fmt::format("family {} has no code twin ({} not found)", name, shown(path));
  if (!l.missing.empty()) return l;
  try {
    l.twin = config::load_experiment_file(path, registry::instance());
    if (!l.twin->skip_reason.empty()) {
      l.missing = fmt::format("its code twin {} cannot be compiled here: {}", shown(path), l.twin->skip_reason);
      l.twin.reset();
    } else if (l.twin->sources.empty()) {
      l.missing = fmt::format("{} is not a source experiment (no `source:` block)", shown(path));
      l.twin.reset();
    }
  } catch (const error& e) { // a twin that does not load costs its family the code, not the run
    std::string what = e.what();
    if (const auto eol = what.find('\n'); eol != std::string::npos) what.resize(eol);
    l.missing = fmt::format("its code twin {} does not load: {}", shown(path), what);
  }
  return l;
}

std::variant<twin_configuration, std::string> code_twins::find(const config::experiment& exp,
                                                               const config::configuration& cfg) {
  const std::lock_guard<std::mutex> hold(m_mutex); // loads a family's twin the first time
  const loaded& l = family(exp.family);
  if (!l.twin) return l.missing;
  const config::experiment& twin = *l.twin;
  twin_configuration out;
  out.twin = &twin;
  out.variant = twin.find_source(cfg.variant);
  if (out.variant == nullptr) return fmt::format("its code twin {} has no variant {}", shown(twin.path), cfg.variant);
  out.params = nlohmann::json::object();
  std::set<std::string> swept;
  for (const auto& a : twin.axes) {
    if (!cfg.params.contains(a.name))
      return fmt::format("axis {} of its code twin {} is not a parameter of family {}", a.name, shown(twin.path),
                         exp.family);
    out.params[a.name] = cfg.params[a.name];
    swept.insert(a.name);
  }
  // The twin's kernel has every parameter it does not sweep fixed, at the family's default (the
  // value code_twins compares it at): another value would be a different kernel.
  for (const auto& [name, value] : cfg.params.items()) {
    if (swept.count(name) != 0) continue;
    const auto d = exp.defaults.find(name);
    if (d == exp.defaults.end() || *d != value)
      return fmt::format("its code twin {} has {} fixed at the family's default{}, not {}", shown(twin.path), name,
                         d == exp.defaults.end() ? "" : " " + text_of(*d), text_of(value));
  }
  return out;
}

} // namespace bb::session
