#pragma once
/// The distinct kernels that the source configurations of one or more sweeps need: configurations
/// that compile the same request (same file, name expression, defines, include folders and
/// architecture) share one compile. `validate`, `compile` and the compile phase of `run` collect
/// them here, compile them in parallel, and report each failing log once.
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/common/error.hpp"
#include "runner/config/experiment.hpp"
#include "runner/source/parallel_compile.hpp"

namespace bb::source {

/// A configuration that uses a kernel.
struct kernel_user {
  std::size_t experiment = 0;    ///< index into the caller's experiments
  std::size_t configuration = 0; ///< its index in config::expand()
  std::string variant;
  int line = 0;       ///< where the variant is written in the experiment file
  std::string params; ///< config::describe_params
};

/// One distinct compile request and the configurations that use it.
struct sweep_kernel {
  compile_request request;
  std::vector<kernel_user> users; ///< in sweep order
  compile_outcome outcome;        ///< set by sweep_kernels::compile()
};

/// A configuration refused before its kernel could be named: an expression of the variant does not
/// evaluate (config::check_source_configuration). A run fails it with the same message.
struct refused_configuration {
  kernel_user user;
  std::string message;
};

/// Kernels that failed with the same log (an `#include` that cannot be opened fails every variant
/// of the file alike): the log is shown once, for the first, with what the others cost.
struct failure_group {
  std::string message;                      ///< the first kernel's compile error, as compile() threw it
  std::vector<const sweep_kernel*> kernels; ///< in the order they were added
  [[nodiscard]] std::size_t configurations() const;
  /// The first configuration that fails.
  [[nodiscard]] const kernel_user& first() const { return kernels.front()->users.front(); }
  /// "the same error fails 3 more configurations: variant 'b' (n=64), ..." naming at most `shown`;
  /// "" where it fails one configuration.
  [[nodiscard]] std::string others_text(std::size_t shown = 4) const;
};

/// What one experiment's kernels came to.
struct experiment_kernels {
  std::size_t kernels = 0; ///< distinct kernels its configurations use
  std::size_t cache_hits = 0, compiled = 0, failed = 0;
  double compile_ms = 0;   ///< compile time of those compiled
  double cache_hit_ms = 0; ///< time finding those in the cache: hashing the source and headers, reading the cubin
};

class sweep_kernels {
public:
  /// Adds the source configurations of `exp` (experiment `index` of the caller's list) that
  /// `wanted` accepts (all where it is empty), once for each architecture of `archs`.
  void add(const config::experiment& exp, std::size_t index, const std::vector<std::string>& archs,
           const std::function<bool(std::size_t configuration)>& wanted = {});
  /// Adds one configuration: variant `v` of `exp` at `params`, used by `user` (a built-in
  /// configuration's code twin, --model-source code), once for each architecture of `archs`.
  void add_configuration(const config::experiment& exp, const config::source_variant& v, const nlohmann::json& params,
                         const kernel_user& user, const std::vector<std::string>& archs);

  /// Asks every kernel added after this for the bank model alone (compile_request::ptx_only: no
  /// cubin, so nvcc runs no ptxas): `run --backend model`.
  void for_model_only(bool on) { m_ptx_only = on; }

  [[nodiscard]] const std::vector<sweep_kernel>& kernels() const { return m_kernels; }
  [[nodiscard]] const std::vector<refused_configuration>& refused() const { return m_refused; }
  /// Configurations added, over every kernel (a configuration counts once per architecture).
  [[nodiscard]] std::size_t configurations() const;

  /// Compiles every kernel (compile_parallel) and keeps each outcome. Returns the wall time in s.
  /// Kernels for nvcc that differ only in their name expression are compiled by one nvcc run
  /// (compile_request::companions): nvcc compiles the whole file for any one of them.
  double compile(const parallel_options& options);
  /// The nvcc runs that compiled kernels together in the last compile() (0: none did).
  [[nodiscard]] std::size_t nvcc_runs() const { return m_nvcc_runs; }

  /// The kernels that did not compile, grouped by their log, in the order they were added.
  [[nodiscard]] std::vector<failure_group> failures() const;
  /// Per experiment index (0 .. `experiments` - 1): its kernels' outcomes.
  [[nodiscard]] std::vector<experiment_kernels> per_experiment(std::size_t experiments) const;
  /// Problems to report as `validate` does: one per refused configuration, one per failure group
  /// (at its first configuration's variant in its experiment file).
  [[nodiscard]] std::vector<diagnostic> diagnostics(const std::vector<config::experiment>& experiments) const;
  /// Variants whose args do not match their compiled kernel's parameters (sizes, read from the
  /// PTX in `cache_dir`): one problem per variant, at the variant in its experiment file. A GPU run
  /// would fail each of their configurations with the same words.
  [[nodiscard]] std::vector<diagnostic> argument_diagnostics(const std::vector<config::experiment>& experiments,
                                                             const std::string& cache_dir) const;

private:
  std::vector<sweep_kernel> m_kernels;
  std::map<std::string, std::size_t> m_by_id; ///< request_id -> index in m_kernels
  std::vector<refused_configuration> m_refused;
  std::size_t m_nvcc_runs = 0;
  bool m_ptx_only = false;
};

} // namespace bb::source
