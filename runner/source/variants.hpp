#pragma once
/// Source variants as registry variants: each gets a variant_info whose factory compiles (or
/// finds in the cache) the kernel for the current device, loads it through the CUDA runtime,
/// checks its parameters, allocates and fills its buffers, and checks its outputs. The executor
/// then runs them as it runs the built-in ones.
#include <string>
#include <vector>

#include "runner/config/experiment.hpp"
#include "runner/registry/registry.hpp"
#include "runner/source/compile.hpp"

namespace bb::source {

/// One variant_info per source variant of `exp` (none for a built-in family). `exp` must outlive
/// them. Compiled kernels go to `cache_dir` (default_cache_dir() when empty).
std::vector<variant_info> variants_of(const config::experiment& exp, const std::string& cache_dir = {});

/// SHA-256 over every source variant's name, file hash (the file and the headers it includes),
/// kernel, defines and arguments; "" for an experiment without source variants. A run's
/// fingerprint includes it, so an edited kernel is never taken for the same code.
std::string source_fingerprint(const config::experiment& exp);

/// The compile request of source variant `v` (as written, not config::with_types_at's) at one
/// configuration's `params`, for `arch`: the name expression and defines with the axes' values put
/// in, an element type that an argument's `type:` names as its C++ type (int32 as int).
compile_request request_of(const config::source_variant& v, const nlohmann::json& params, const std::string& arch);

} // namespace bb::source
