#pragma once
/// The bank model's prediction for a source variant, without a GPU: the kernel compiled as for a
/// GPU run (the same cache; its PTX kept beside the cubin), the launch's blocks run by the PTX
/// interpreter (runner/ptx) on the configuration's real inputs, and every warp's shared-memory
/// request costed by the model's rules. docs/bank-model.md, "Predicting from the kernel's code
/// (PTX)", says which blocks are run and when the counts are scaled.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/config/experiment.hpp"
#include "runner/model/predict.hpp"
#include "runner/registry/registry.hpp"
#include "runner/source/compile.hpp"
#include "runner/store/lines.hpp"

namespace bb::source {

/// What the model cannot follow: an instruction the interpreter does not support (the message
/// names it, its PTX line and its source file:line), an access outside every buffer, a budget
/// exceeded. The configuration is stored not_modelled with this reason, never with a guess.
class not_modelled : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Thread-instructions the interpreter runs for one configuration at most (`run --model-budget`).
inline constexpr std::uint64_t k_default_model_budget = 50'000'000;

struct emulation_options {
  std::uint64_t budget = k_default_model_budget;
  std::string arch = "sm_90"; ///< what the kernel is compiled for: the chip the model's rules describe
  bool check = true;          ///< compare the outputs with the variant's check (false: `unchecked` says so)
  /// Compile for the model alone (compile_request::ptx_only), as the model backend's compile phase
  /// did; false beside a GPU's measurement, whose compile phase made cubins.
  bool ptx_only = false;
  /// What built the emulation (the interpreter, the rules and everything else that decides a
  /// prediction), part of the prediction cache's key; empty: no prediction cache.
  std::string cache_version;
};

/// The budget of the prediction stored beside a GPU run's measurement of a source variant: small,
/// so that a configuration's GPU run is not slowed by more than about a tenth of a second.
inline constexpr std::uint64_t k_beside_measured_budget = 5'000'000;

struct emulation {
  model::prediction prediction; ///< the whole launch's requests and wavefronts
  /// Per PTX instruction that touched shared memory: function (mangled), pc (the PTX line), file,
  /// line, opcode (PTX), kind, executions (warp requests), threads, wavefronts, ideal; source is left
  /// for the caller to read. Status
  /// no_line_info where the PTX has no line info.
  store::line_collection lines;
  int smem_access_bytes = 4;
  std::uint64_t blocks = 0, blocks_run = 0; ///< fewer run than there are: the sample's counts were scaled
  /// One block ran because the PTX shows that every block makes the same shared-memory requests
  /// (ptx/alike.hpp): its counts times the blocks are the launch's, exactly.
  bool blocks_alike = false;
  /// The outputs against the variant's check: `checked` false with `unchecked` saying why
  /// (no check, a sample whose outputs cannot be checked), else `verify` holds the comparison.
  bool checked = false;
  std::string unchecked;
  verify_result verify;
  std::string compile_key, compiler, compile_options;
  double compile_ms = 0;
  bool from_cache = false; ///< read from the prediction cache (prediction_cache.hpp), not emulated now
};

/// Predicts configuration `params` of source variant `v` of `exp`. Throws not_modelled (above),
/// unsupported_parameter where a GPU would refuse the launch (a block of more than 1024 threads,
/// more dynamic shared memory than an sm_90 block may have), bb::error (usage) for an argument list
/// that does not match the kernel's parameters or a kernel that does not compile.
emulation emulate(const config::experiment& exp, const config::source_variant& v, const nlohmann::json& params,
                  std::uint64_t seed, const std::string& cache_dir, const emulation_options& options = {});

/// One distinct warp request of one block, for `bankmap`.
struct block_request {
  model::warp_access access;
  std::uint64_t count = 0; ///< times the block makes it
  std::string where;       ///< "kernels.cu:10 ld.shared.f32": its source line and PTX instruction
};

/// The distinct shared-memory requests block (0, 0, 0) of the configuration makes, in the order of
/// their first issue. Throws as emulate() does.
std::vector<block_request> block_requests(const config::experiment& exp, const config::source_variant& v,
                                          const nlohmann::json& params, std::uint64_t seed,
                                          const std::string& cache_dir, const emulation_options& options = {});

/// How many times this process emulated a reference variant for a check: the outputs of each
/// reference at each configuration are kept (up to 256 MiB, the least recently used dropped first),
/// those of a reference emulated as a variant of its own too, so a second variant checked against
/// the same reference at the same configuration reads them instead.
std::uint64_t references_emulated();

/// The parameter sizes of kernel `k` as its PTX declares them, in order; nullopt where the PTX
/// cannot be read or has no entry of k.lowered_name. `validate` checks a variant's args with them.
std::optional<std::vector<std::size_t>> ptx_parameter_sizes(const compiled_kernel& k);
/// The same parameters' PTX types ("u64", "f32", "b8"...), for check_parameter_types.
std::optional<std::vector<std::string>> ptx_parameter_types(const compiled_kernel& k);

} // namespace bb::source
