#pragma once
/// Experiment files (experiments/<family>/<name>.yaml): loading, validation and sweep expansion.
/// The format is defined by schemas/experiment.schema.json and described in
/// docs/experiment-format.md. No CUDA headers.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "registry/registry.hpp"

namespace bb::config {

/// A sweep may not expand to more configurations than this.
inline constexpr std::size_t k_max_configurations = 100000;
/// The largest experiment file read (1 MiB); a bigger one is refused before it is read.
inline constexpr std::size_t k_max_file_bytes = 1u << 20;

/// One `expect:` entry: a bound on one metric for some variants and configurations.
struct expectation {
  std::vector<std::string> variants;               ///< empty = every variant
  nlohmann::json where = nlohmann::json::object(); ///< params that must all be equal
  std::string metric;
  /// between: both bounds inclusive; below: high exclusive; above: low exclusive
  std::optional<double> low, high;
  bool low_inclusive = true, high_inclusive = true;
  /// Canonical text, e.g. "load_wavefronts_per_request in [31, 33]" or
  /// "load_conflicts_per_request < 0.01".
  std::string text;
  std::string claim; ///< the claim this bound checks, when the file says; may be empty
  int line = 0, column = 0; ///< where the entry starts in the file, 1-based

  /// True when the expectation covers this variant and these params.
  [[nodiscard]] bool applies_to(const std::string& variant, const nlohmann::json& params) const;
  /// True when `value` is within the bound; NaN never holds.
  [[nodiscard]] bool holds(double value) const;
};

/// How often each configuration runs.
struct repeat_spec {
  int warmup = 3;           ///< untimed launches before sampling
  int samples = 20;         ///< timed launches
  int placements = 1;       ///< instances the samples are split over (launch::exec_options)
  int counter_launches = 1; ///< launches under the profiler
};

/// One swept parameter and its values, in file order.
struct axis {
  std::string name;
  std::vector<nlohmann::json> values;
};

/// A validated experiment file.
struct experiment {
  std::string path, text; ///< as given, and the file's full text
  std::string name, description, family;
  std::string claim; ///< the common claim the experiment tests; may be empty
  std::vector<std::string> variants;
  std::vector<axis> axes; ///< in file order
  std::vector<std::vector<std::string>> zip;
  std::vector<nlohmann::json> exclude; ///< each an object: partial assignment of variant/axes
  std::string metric_set;              ///< the set's name, or "" when metrics were listed
  std::vector<std::string> metrics;    ///< resolved CUPTI names, in order, unique
  repeat_spec repeat;
  std::uint64_t seed = 1;
  double time_limit_s = 120; ///< one configuration's wall-clock limit
  std::vector<expectation> expectations;
  /// Every param of the family with its registered default; expand() overrides the axes.
  nlohmann::json defaults = nlohmann::json::object();
};

/// One point of the sweep.
struct configuration {
  std::size_t index = 0; ///< 0-based position in the expansion
  std::string variant;   ///< name within the family, e.g. "naive"
  /// Object with every family param (defaults filled); nlohmann::json sorts keys, so
  /// params.dump() is canonical.
  nlohmann::json params;
};

/// Reads and validates an experiment file. Throws bb::config_error holding every problem found.
experiment load_experiment_file(const std::string& path, const registry& reg);

/// As load_experiment_file, from text; `path_for_messages` names the file in diagnostics.
experiment load_experiment_text(const std::string& text, const std::string& path_for_messages,
                                const registry& reg);

/// The sweep: variants outermost (file order), then axes in file order (first axis slowest);
/// axes of a zip group advance together; configurations matching an exclude entry are dropped.
std::vector<configuration> expand(const experiment& exp);

/// Compact text such as "n=1024 tile=32": "key=value" joined by spaces, sorted keys, strings
/// unquoted.
std::string describe_params(const nlohmann::json& params);

} // namespace bb::config
