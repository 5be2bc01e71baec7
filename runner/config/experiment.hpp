#pragma once
/// Experiment files (experiments/<family>/<name>.yaml): loading, validation and sweep expansion.
/// The format is defined by schemas/experiment.schema.json and described in
/// docs/experiment-format.md. No CUDA headers.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/common/metrics.hpp"
#include "runner/registry/registry.hpp"

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
  std::string claim;        ///< the claim this bound checks, when the file says; may be empty
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

/// An argument of a source variant's kernel, in parameter order.
struct source_arg {
  bool is_buffer = true;
  std::string name;
  std::string type;       ///< float, double, float16, bfloat16, int8 .. uint64
  std::string expression; ///< buffer: its element count; scalar: its value (integer expression or number)
  /// Buffers: uniform (seeded, as the built-in families: floats in [-1, 1), integers over their
  /// whole range), zeros, iota (0, 1, 2, ...), value (every element `value`), file (raw bytes),
  /// formula (element i is `formula`, an integer expression of i and the configuration's axes).
  std::string init = "zeros";
  /// The file gave `init`: an output buffer is then reset to it before the verified launch (an
  /// accumulator); otherwise an output is poisoned (every byte 0xff).
  bool init_given = false;
  double value = 0;
  std::string file;    ///< init file: path resolved against the experiment file's folder
  std::string formula; ///< init formula: its text
  bool output = false;
  /// A TMA tensor map (`tensor_map: NAME`): a buffer of the product of `dims` elements (`expression`
  /// is that product), passed as the 128-byte CUtensorMap over it whose copies move `box`
  /// elements (both innermost first) with the swizzle of `swizzle_bits` (0 none, 1 32B, 2 64B, 3 128B).
  bool tensor_map = false;
  std::vector<std::string> dims, box;
  int swizzle_bits = 0;
};

/// How a source variant's outputs are checked; neither: the configuration is stored unverified.
struct source_check {
  std::string reference; ///< another variant of the experiment, run on the same inputs
  std::string file;      ///< or the raw bytes of the one output buffer (resolved path)
  double tolerance = 0;  ///< 0: bit-exact; else |got - want| <= tolerance * max(1, |want|)
};

/// A variant compiled at run time from a CUDA file (docs/experiment-format.md, "Source variants").
struct source_variant {
  std::string name;
  std::string file;                                         ///< resolved against the experiment's folder
  std::string kernel;                                       ///< name expression; axis names are replaced by values
  std::vector<std::pair<std::string, std::string>> defines; ///< NAME -> value text (axis names replaced)
  std::vector<std::string> include_dirs;                    ///< resolved
  std::string compiler = "auto";                            ///< auto, nvrtc or nvcc
  std::vector<std::string> options;                         ///< the user's compiler flags
  std::vector<std::string> grid, block;                     ///< 1 to 3 expressions each
  std::string shared_bytes = "0";                           ///< dynamic shared memory, an expression
  std::vector<source_arg> args;
  std::optional<source_check> check;
  /// Bytes one lane reads or writes per shared-memory access (4: float or int; 8: double or
  /// float2; 16: float4): the ideal wavefronts per request the excess metrics are measured against.
  int smem_access_bytes = 4;
  int line = 0; ///< where the variant is written (or the source: block)
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
  metrics::metric_list metrics;        ///< the counters it collects: a named set or its own list
  repeat_spec repeat;
  std::uint64_t seed = 1;
  double time_limit_s = 120; ///< one configuration's wall-clock limit
  /// `lines:` per-line counters whenever it runs on a GPU (as `run --lines`): `true` collects
  /// every configuration's; a list, those its patterns select (as --lines-for).
  bool lines = false;
  std::vector<std::string> lines_for;
  std::vector<expectation> expectations;
  /// Every param of the family with its registered default; expand() overrides the axes.
  nlohmann::json defaults = nlohmann::json::object();
  /// Source experiments (a `source:` block): one per variant, in the order of `variants`; empty for
  /// the built-in families. `family` is then "source" unless the file names one.
  std::vector<source_variant> sources;
  /// Libraries the kernels include (`requires:` in `source:`): "cutlass" is found in an `include`
  /// folder or through $CUTLASS_DIR as the file is loaded, and its include folder is added to
  /// each variant's `include_dirs` (find_cutlass).
  std::vector<std::string> requires_libraries;
  /// Why the kernels cannot be compiled on this machine (a required library not found) and how
  /// to point at it; "" when they can. `validate` and GPU runs skip such an experiment with this
  /// note and do not fail.
  std::string skip_reason;
  [[nodiscard]] const source_variant* find_source(const std::string& variant) const;
};

/// Where CUTLASS is for a source experiment that requires it.
struct library_search {
  std::string
      include_dir;     ///< to add to variants whose `include` folders lack it; "" when they have it or it is missing
  std::string missing; ///< why it was not found and how to point at it; "" when found
};

/// CUTLASS for `requires: [cutlass]`: found when each of `include_dirs` (a variant's folders)
/// lists a folder holding cute/tensor.hpp, else at $CUTLASS_DIR/include (or $CUTLASS_DIR itself,
/// for one who named the include folder). `cutlass_dir` is $CUTLASS_DIR (null: not set).
library_search find_cutlass(const std::vector<std::vector<std::string>>& include_dirs, const char* cutlass_dir);

/// The text of `text` with every identifier that names a key of `params` replaced by its value
/// (strings unquoted): "transpose<padded, tile, 8>" -> "transpose<padded, 32, 8>".
std::string substitute_params(const std::string& text, const nlohmann::json& params);

/// Bytes of one element of a source buffer type (float, double, float16, bfloat16, int8 .. uint64);
/// 0 when unknown.
std::size_t element_bytes(const std::string& type);

/// Every expression of source variant `v` evaluated at `params`, as a run would: launch dimensions
/// in 1 .. 2^31-1, shared memory and buffer counts not negative, buffer bytes within 64 bits,
/// scalars integers (or numbers for the floating types). Needs no GPU; `validate` calls it for every
/// configuration. Throws bb::error (usage) naming the experiment, the variant, the key and the
/// expression.
void check_source_configuration(const experiment& exp, const source_variant& v, const nlohmann::json& params);

/// `v` at configuration `params`: each argument whose `type` names an axis (`type: T` with
/// `axes: {T: [float, double]}`) gets that axis's value there; every other argument as it is.
source_variant with_types_at(const source_variant& v, const nlohmann::json& params);

/// An expression of a source variant evaluated over a configuration's params (integers only).
/// Throws bb::error (usage) naming the variant, the key and the expression.
std::int64_t evaluate_param_expression(const std::string& text, const nlohmann::json& params, const std::string& what);

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
experiment load_experiment_text(const std::string& text, const std::string& path_for_messages, const registry& reg);

/// The sweep: variants outermost (file order), then axes in file order (first axis slowest);
/// axes of a zip group advance together; configurations matching an exclude entry are dropped.
std::vector<configuration> expand(const experiment& exp);

/// Compact text such as "n=1024 tile=32": "key=value" joined by spaces, sorted keys, strings
/// unquoted.
std::string describe_params(const nlohmann::json& params);

/// One expectation held to one configuration's results.
struct expectation_outcome {
  std::string metric, text;
  std::optional<double> observed; ///< empty when the metric was not measured
  bool passed = false;
};

/// Holds the expectations of `exp` that apply to `cfg` to what it observed: `observe(metric)`
/// is the value seen (nullopt where the metric was not measured or predicted). An expectation on
/// an unobserved metric fails, unless `counters_ran` is false: then nothing counted it, and it is
/// left out rather than judged.
std::vector<expectation_outcome> judge_expectations(
    const experiment& exp, const configuration& cfg,
    const std::function<std::optional<double>(const std::string& metric)>& observe, bool counters_ran);

} // namespace bb::config
