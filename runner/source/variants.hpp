#pragma once
/// Source variants as registry variants: each gets a variant_info whose factory compiles (or
/// finds in the cache) the kernel for the current device, loads it through the CUDA runtime,
/// checks its parameters, allocates and fills its buffers, and checks its outputs. The executor
/// then runs them as it runs the built-in ones.
#include <string>
#include <vector>

#include "runner/config/experiment.hpp"
#include "runner/registry/registry.hpp"

namespace bb::source {

/// One variant_info per source variant of `exp` (none for a built-in family). `exp` must outlive
/// them. Compiled kernels go to `cache_dir` (default_cache_dir() when empty).
std::vector<variant_info> variants_of(const config::experiment& exp, const std::string& cache_dir = {});

/// SHA-256 over every source variant's name, file hash (the file and the headers it includes),
/// kernel, defines and arguments; "" for an experiment without source variants. A run's
/// fingerprint includes it, so an edited kernel is never taken for the same code.
std::string source_fingerprint(const config::experiment& exp);

/// What `validate` found compiling an experiment's source variants.
struct validate_result {
  std::size_t kernels = 0; ///< distinct (variant, kernel, defines) compiled
  std::size_t cache_hits = 0;
  double compile_ms = 0;   ///< spent compiling (cache misses)
  double cache_hit_ms = 0; ///< spent finding cache hits: hashing the source and headers, reading the cubin
};

/// Compiles every distinct kernel instance the sweep of `exp` needs, for `arch`, without a GPU.
/// Throws config_error with one diagnostic per failure (file:line from NVRTC, or the YAML's).
validate_result compile_all(const config::experiment& exp, const std::string& arch, const std::string& cache_dir = {});

} // namespace bb::source
