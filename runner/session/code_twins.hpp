#pragma once
/// `run --backend model --model-source code`: built-in variants predicted from their family's own
/// kernel code. A family's twin, bench/code_twins/FAMILY.yaml, is a source experiment that compiles
/// kernels/FAMILY/*.cu with the family's variant names, its launch written in the family's
/// parameter names; a built-in configuration is emulated as the twin's variant of the same name at
/// the configuration's own values (docs/bank-model.md, "Built-in variants from their code").
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "runner/config/experiment.hpp"

namespace bb::session {

/// bench/code_twins of the source tree this bankbench was built from.
std::string default_code_twins_dir();

/// A built-in configuration as its twin runs it.
struct twin_configuration {
  const config::experiment* twin = nullptr;
  const config::source_variant* variant = nullptr;
  nlohmann::json params; ///< the twin's axes at the configuration's values
};

/// The twins of one session, each file loaded once. find() may be called from several threads.
class code_twins {
public:
  explicit code_twins(std::string dir);

  /// The twin of built-in configuration `cfg` of `exp`, or why there is none: no twin file for the
  /// family, no variant of that name in it, an axis of the twin that is not a parameter of the
  /// family, or a parameter the twin does not sweep (its kernel then has it fixed at the family's
  /// default) set to another value.
  std::variant<twin_configuration, std::string> find(const config::experiment& exp, const config::configuration& cfg);

  [[nodiscard]] const std::string& dir() const { return m_dir; }

private:
  struct loaded {
    std::optional<config::experiment> twin;
    std::string missing; ///< why there is no twin, where `twin` is empty
  };
  const loaded& family(const std::string& name);

  std::string m_dir;
  std::mutex m_mutex; ///< find() is called from the model's threads at once
  std::map<std::string, loaded> m_families;
};

} // namespace bb::session
