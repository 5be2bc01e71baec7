#pragma once
/// Source variants' kernels compiled at run time to a cubin (and its PTX) for one architecture, by NVRTC (with
/// bankbench's standard-header layer, runner/source/std_layer.hpp) or by the toolkit's nvcc, and
/// kept in an on-disk cache. Needs no GPU. The key hashes the source and every header it includes
/// (runner/source/track.hpp), the compiler and its version, the options, the name expression and
/// the architecture; docs/source-kernels.md says how.
#include <optional>
#include <string>
#include <vector>

#include "runner/common/error.hpp"

namespace bb::source {

/// Which compiler: `auto` is NVRTC, falling back to nvcc where NVRTC cannot compile the file.
enum class compiler_choice { automatic, nvrtc, nvcc };

/// "auto", "nvrtc", "nvcc".
const char* name_of(compiler_choice c);

struct compile_request {
  std::string source_path;               ///< the .cu file, as the user named it (messages use it)
  std::string kernel;                    ///< a name expression: "transpose<32, 1>" or "histogram"
  std::vector<std::string> defines;      ///< "TILE=32", passed as -D
  std::vector<std::string> include_dirs; ///< user include folders, searched after the source's own
  std::string arch = "sm_90";            ///< sm_XY or sm_XYa
  compiler_choice compiler = compiler_choice::automatic;
  std::vector<std::string> options; ///< the user's flags: "-std=c++20", "--use_fast_math"
  /// Where nvcc compiles it: more name expressions of the same file, compiled in the same nvcc run
  /// and cached under their own keys (nvcc compiles the whole file for any one of them). Not part
  /// of what is compiled for this kernel, nor of its cache key.
  std::vector<std::string> companions;
  /// For the bank model alone, which reads only the PTX: nvcc stops at the PTX (`-ptx`, no ptxas)
  /// and NVRTC compiles for the virtual architecture (compute_XY), leaving the cubin empty. Cached
  /// under its own key; the same kernel's entry with a cubin serves it too. A GPU run never asks.
  bool ptx_only = false;
};

struct compiled_kernel {
  std::string cubin;        ///< empty where the request was ptx_only and no full entry was cached
  std::string ptx;          ///< the PTX the cubin was made from (with line info): what the bank model runs
  std::string lowered_name; ///< the mangled name to load
  std::string key;          ///< the cache key (hex SHA-256)
  std::string source_hash;  ///< SHA-256 of the source and the headers it includes
  double compile_ms = 0;    ///< 0 on a cache hit
  bool cache_hit = false;
  std::vector<std::string> headers; ///< user headers found by include tracking, in order
  std::string compiler;             ///< "nvrtc 13.0" or "nvcc 13.0.88": what compiled it
  std::string options;              ///< every flag it was compiled with, the architecture first
  std::string arch;                 ///< what it was compiled for: the request's, or with "a" added
  std::string fallback;             ///< why NVRTC could not, when `auto` used nvcc; else empty
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
/// the compiler itself fails or is missing. Safe to call from several threads at once.
compiled_kernel compile(const compile_request& request, const std::string& cache_dir);

/// The kernel from `cache_dir` where compile() would find it there, without compiling: nullopt
/// where compile() would compile (or `cache_dir` is ""). Throws as compile() does for a source that
/// cannot be read or a compiler that is missing. Costs no NVRTC compile, so compile_parallel()
/// looks every request up in its own process and starts compile servers only for the misses.
/// `headers`, when given, gets how many headers the source reads (hit or miss): what
/// compile_parallel() expects the longest compiles from.
std::optional<compiled_kernel> find_cached(const compile_request& request, const std::string& cache_dir,
                                           std::size_t* headers = nullptr);

/// SHA-256 over the source file and every header it includes, as the cache key sees them
/// (through the manifests of default_cache_dir()). Throws compile_error when the source cannot be read.
std::string source_hash(const std::string& source_path, const std::vector<std::string>& include_dirs);

/// Says once per file and process, at info level, why `auto` compiled a file with nvcc.
void note_fallback(const std::string& file, const std::string& why);

/// "13.0": the NVRTC library's version.
std::string nvrtc_version();

/// "sm_90" from a compute capability.
std::string arch_of(int cc_major, int cc_minor);

} // namespace bb::source
