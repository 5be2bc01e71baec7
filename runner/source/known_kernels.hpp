#pragma once
/// What this process knows of kernels before it compiles them. `run` compiles a sweep's distinct
/// kernels before its GPU phase, in the process that then forks the workers, and remembers each
/// outcome here: every worker, a fresh one after a crash too, inherits it, so a kernel that does not
/// compile is not compiled again for each of its configurations, and its log is not printed again.
#include <string>

#include "runner/source/compile.hpp"
#include "runner/source/parallel_compile.hpp"

namespace bb::source {

/// Keeps the outcome of compiling `request` for the rest of this process (and its children).
void remember(const compile_request& request, const compile_outcome& outcome);

/// The same by request_id(request): for outcomes another process compiled and reported.
void remember(const std::string& request_id, const compile_outcome& outcome);

/// compile() through what this process knows: a kernel known not to compile throws its
/// compile_error at once; one that fails here for the first time logs its error once (later
/// configurations get the error without the log). A kernel compiled earlier by this run, found now
/// in the cache, reports that compile time to the first configuration of this process that uses it
/// (the others: 0, as cache hits).
compiled_kernel compile_known(const compile_request& request, const std::string& cache_dir);

} // namespace bb::source
