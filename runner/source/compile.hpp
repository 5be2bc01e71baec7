#pragma once
/// Source variants' kernels compiled at run time by NVRTC to a cubin for one architecture, and
/// kept in an on-disk cache. Needs no GPU. The key hashes the source, every header it includes
/// (found by following its #include lines through the source's folder and the include paths),
/// the options, the name expression, NVRTC's version and the architecture.
#include <string>
#include <vector>

#include "runner/common/error.hpp"

namespace bb::source {

struct compile_request {
  std::string source_path;               ///< the .cu file, as the user named it (messages use it)
  std::string kernel;                    ///< a name expression: "transpose<32, 1>" or "histogram"
  std::vector<std::string> defines;      ///< "TILE=32", passed as -D
  std::vector<std::string> include_dirs; ///< user include folders, searched after the source's own
  std::string arch = "sm_90";            ///< sm_XY or sm_XYa
};

struct compiled_kernel {
  std::string cubin;
  std::string lowered_name; ///< the mangled name to load
  std::string key;          ///< the cache key (hex SHA-256)
  std::string source_hash;  ///< SHA-256 of the source and the headers it includes
  double compile_ms = 0;    ///< 0 on a cache hit
  bool cache_hit = false;
  std::vector<std::string> headers; ///< user headers found by include tracking, in order
};

/// A kernel that does not compile: the log, with NVRTC's "file(line): error" turned into
/// "file:line: error" at the user's file. Exit code: usage (the input is wrong).
class compile_error : public error {
public:
  explicit compile_error(const std::string& what) : error(exit_code::usage, what) {}
};

/// The cache folder: $BB_CACHE_DIR, else $XDG_CACHE_HOME/bankbench/nvrtc, else
/// ~/.cache/bankbench/nvrtc. An empty string disables the cache (no HOME).
std::string default_cache_dir();

/// Compiles (or finds in `cache_dir`; "" disables the cache). Throws compile_error for a bad
/// source, a missing file or a name expression that does not instantiate; environment_error when
/// NVRTC itself fails.
compiled_kernel compile(const compile_request& request, const std::string& cache_dir);

/// SHA-256 over the source file and every header it includes, as the cache key sees them.
/// Throws compile_error when the source cannot be read.
std::string source_hash(const std::string& source_path, const std::vector<std::string>& include_dirs);

/// "13.0": the NVRTC library's version.
std::string nvrtc_version();

/// "sm_90" from a compute capability.
std::string arch_of(int cc_major, int cc_minor);

} // namespace bb::source
