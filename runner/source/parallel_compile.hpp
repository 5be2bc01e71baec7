#pragma once
/// Many compile requests at once: each distinct request compiled (or found in the cache) on its own
/// thread of a small pool, with progress on stderr. compile() may be called from several threads
/// for distinct requests: NVRTC programs are independent, and cache entries are written to a
/// temporary name and renamed.
#include <atomic>
#include <cstddef>
#include <string>
#include <vector>

#include "runner/source/compile.hpp"

namespace bb::source {

/// Every field of a request, as text: two requests with the same id compile the same kernel (same
/// file, name expression, defines, include folders and architecture). Sweeps are deduplicated by it.
std::string request_id(const compile_request& request);

/// What became of one request.
struct compile_outcome {
  bool attempted = false; ///< false: stopped (interrupted) before its turn
  bool ok = false;
  bool cache_hit = false;
  double ms = 0;         ///< wall time: the compile, or finding the cache entry
  double compile_ms = 0; ///< compiled_kernel::compile_ms: 0 on a cache hit
  std::string key;       ///< the cache key, when ok
  std::string error;     ///< compile_error's text, when not ok
};

struct parallel_options {
  unsigned jobs = 0;     ///< threads; 0: default_jobs()
  std::string cache_dir; ///< as compile() takes it ("" disables the cache)
  /// "compiling 24 kernels: 7/24, 41 s" on stderr once it takes more than a second: refreshed in
  /// place on a terminal, a line every 5 s otherwise; nothing under -q.
  bool progress = false;
  const std::atomic<bool>* stop = nullptr; ///< when set, requests not begun yet are left (attempted = false)
};

/// The threads compile uses unless told: $BB_COMPILE_JOBS when it is a positive number, else the
/// machine's hardware threads (std::thread::hardware_concurrency(), at least 1).
unsigned default_jobs();

/// The order the kernels to compile are taken in, given how many headers each reads (`headers`, in
/// request order): most headers first, as the longest compiles to expect (a CuTe kernel reads
/// hundreds and takes seconds), the rest in request order. Indices into `headers`.
std::vector<std::size_t> compile_order(const std::vector<std::size_t>& headers);

/// Compiles every request on min(jobs, requests) threads; one outcome per request, in order. Every
/// request is first looked up in the cache in this process (find_cached); only the misses are
/// compiled, in compile_order(). Where the command line named a compile server and jobs > 1, each
/// thread that compiles does so in a server process of its own: min(jobs, misses) servers, none
/// when every kernel is in the cache, each started as soon as its thread meets a miss. A kernel
/// that does not compile (compile_error) is an outcome; any other error (NVRTC missing, a bug) is
/// thrown once every thread has stopped.
std::vector<compile_outcome> compile_parallel(const std::vector<compile_request>& requests,
                                              const parallel_options& options);

} // namespace bb::source
