#include "runner/source/std_layer.hpp"

#include <array>
#include <utility>

#include "runner/common/sha256.hpp"

namespace bb::source {

namespace {

// Brings libcu++'s names into std. `cuda::std` is opened first because some of its headers
// (<cuda/std/version>) declare nothing in it.
constexpr const char* k_into_std = "namespace cuda { namespace std {} }\n"
                                   "namespace std { using namespace ::cuda::std; }\n";

// The C limits of <cfloat>: libcu++ defines none of them under NVRTC. IEEE-754 binary32/binary64.
constexpr const char* k_float_macros = R"(#ifndef FLT_RADIX
#define FLT_RADIX 2
#define FLT_MANT_DIG 24
#define DBL_MANT_DIG 53
#define LDBL_MANT_DIG 53
#define FLT_DIG 6
#define DBL_DIG 15
#define LDBL_DIG 15
#define FLT_DECIMAL_DIG 9
#define DBL_DECIMAL_DIG 17
#define DECIMAL_DIG 17
#define FLT_MIN_EXP (-125)
#define DBL_MIN_EXP (-1021)
#define FLT_MIN_10_EXP (-37)
#define DBL_MIN_10_EXP (-307)
#define FLT_MAX_EXP 128
#define DBL_MAX_EXP 1024
#define FLT_MAX_10_EXP 38
#define DBL_MAX_10_EXP 308
#define FLT_MAX 3.40282346638528859812e+38F
#define DBL_MAX 1.79769313486231570815e+308
#define FLT_MIN 1.17549435082228750797e-38F
#define DBL_MIN 2.22507385850720138309e-308
#define FLT_EPSILON 1.19209289550781250000e-7F
#define DBL_EPSILON 2.22044604925031308085e-16
#define FLT_TRUE_MIN 1.40129846432481707092e-45F
#define DBL_TRUE_MIN 4.94065645841246544177e-324
#define FLT_EVAL_METHOD 0
#endif
)";

// size_t and ptrdiff_t in the global namespace too, as <stddef.h> declares them.
constexpr const char* k_size_types = "using ::cuda::std::size_t;\nusing ::cuda::std::ptrdiff_t;\n";

// <algorithm> has no public libcu++ header; its device-usable pieces do, under __algorithm.
constexpr const char* k_algorithm = R"(#if __has_include(<cuda/std/__algorithm/min.h>)
#include <cuda/std/__algorithm/min.h>
#include <cuda/std/__algorithm/max.h>
#endif
#if __has_include(<cuda/std/__algorithm/clamp.h>)
#include <cuda/std/__algorithm/clamp.h>
#endif
#if __has_include(<cuda/std/__algorithm/minmax.h>)
#include <cuda/std/__algorithm/minmax.h>
#endif
#if __has_include(<cuda/std/__algorithm/fill.h>)
#include <cuda/std/__algorithm/fill.h>
#include <cuda/std/__algorithm/fill_n.h>
#endif
#if __has_include(<cuda/std/__algorithm/copy.h>)
#include <cuda/std/__algorithm/copy.h>
#include <cuda/std/__algorithm/copy_n.h>
#endif
#include <cuda/std/utility>
)";

struct mapping {
  const char* name;  ///< as included
  const char* libcu; ///< the libcu++ header it includes ("" for none)
  const char* extra; ///< text after it
};

// C++ headers map onto their libcu++ twins; the C headers (<stdint.h>) onto the same ones, whose
// names libcu++ also declares globally where C does (the fixed-width integer types).
constexpr std::array k_mappings{
    mapping{"cstdint", "cuda/std/cstdint", ""},
    mapping{"stdint.h", "cuda/std/cstdint", ""},
    mapping{"cstddef", "cuda/std/cstddef", k_size_types},
    mapping{"stddef.h", "cuda/std/cstddef", k_size_types},
    mapping{"climits", "cuda/std/climits", ""},
    mapping{"limits.h", "cuda/std/climits", ""},
    mapping{"cfloat", "cuda/std/cfloat", k_float_macros},
    mapping{"float.h", "cuda/std/cfloat", k_float_macros},
    // printf is built into NVRTC's device code; the header only has to exist.
    mapping{"cstdio", "cuda/std/cstddef", "namespace std { using ::printf; }\n"},
    mapping{"stdio.h", "cuda/std/cstddef", ""},
    mapping{"cassert", "cuda/std/cassert", ""},
    mapping{"assert.h", "cuda/std/cassert", ""},
    mapping{"cmath", "cuda/std/cmath", ""},
    mapping{"math.h", "cuda/std/cmath", ""},
    mapping{"cstdlib", "cuda/std/cstdlib", ""},
    mapping{"stdlib.h", "cuda/std/cstdlib", ""},
    mapping{"cstring", "cuda/std/cstring", ""},
    mapping{"string.h", "cuda/std/cstring", ""},
    mapping{"type_traits", "cuda/std/type_traits", ""},
    mapping{"utility", "cuda/std/utility", ""},
    mapping{"limits", "cuda/std/limits", ""},
    mapping{"array", "cuda/std/array", ""},
    mapping{"tuple", "cuda/std/tuple", ""},
    mapping{"functional", "cuda/std/functional", ""},
    mapping{"initializer_list", "cuda/std/initializer_list", ""},
    mapping{"bit", "cuda/std/bit", ""},
    mapping{"bitset", "cuda/std/bitset", ""},
    mapping{"complex", "cuda/std/complex", ""},
    mapping{"numeric", "cuda/std/numeric", ""},
    mapping{"numbers", "cuda/std/numbers", ""},
    mapping{"iterator", "cuda/std/iterator", ""},
    mapping{"atomic", "cuda/std/atomic", ""},
    mapping{"barrier", "cuda/std/barrier", ""},
    mapping{"latch", "cuda/std/latch", ""},
    mapping{"semaphore", "cuda/std/semaphore", ""},
    mapping{"chrono", "cuda/std/chrono", ""},
    mapping{"ratio", "cuda/std/ratio", ""},
    mapping{"span", "cuda/std/span", ""},
    mapping{"mdspan", "cuda/std/mdspan", ""},
    mapping{"optional", "cuda/std/optional", ""},
    mapping{"variant", "cuda/std/variant", ""},
    mapping{"expected", "cuda/std/expected", ""},
    mapping{"concepts", "cuda/std/concepts", ""},
    mapping{"memory", "cuda/std/memory", ""},
    mapping{"version", "cuda/std/version", ""},
    mapping{"source_location", "cuda/std/source_location", ""},
    mapping{"algorithm", "", k_algorithm},
};

// What each host-only header is for: the error says why NVRTC cannot have it.
constexpr std::array<std::pair<const char*, const char*>, 30> k_host_only{{
    {"iostream", "host I/O"},
    {"istream", "host I/O"},
    {"ostream", "host I/O"},
    {"fstream", "host I/O"},
    {"sstream", "host I/O"},
    {"iomanip", "host I/O"},
    {"vector", "a host container"},
    {"string", "a host container"},
    {"map", "a host container"},
    {"unordered_map", "a host container"},
    {"set", "a host container"},
    {"unordered_set", "a host container"},
    {"list", "a host container"},
    {"deque", "a host container"},
    {"queue", "a host container"},
    {"stack", "a host container"},
    {"thread", "host threads"},
    {"mutex", "host threads"},
    {"condition_variable", "host threads"},
    {"future", "host threads"},
    {"filesystem", "the host file system"},
    {"random", "host random numbers"},
    {"regex", "host text"},
    {"string_view", "host text"},
    {"exception", "host exceptions"},
    {"stdexcept", "host exceptions"},
    {"cuda_runtime.h", "the host runtime API"},
    {"cuda_runtime_api.h", "the host runtime API"},
    {"cub/cub.cuh", "CUB's host launch code (device-wide algorithms)"},
    {"thrust/device_vector.h", "Thrust's host containers"},
}};

std::vector<layer_header> make_layer() {
  std::vector<layer_header> out;
  for (const auto& m : k_mappings) {
    std::string text = std::string("#pragma once\n// bankbench's <") + m.name + "> for NVRTC\n";
    if (*m.libcu != 0) text += std::string("#include <") + m.libcu + ">\n";
    text += m.extra;
    text += k_into_std;
    out.push_back({m.name, text});
  }
  return out;
}

} // namespace

const std::vector<layer_header>& std_layer() {
  static const std::vector<layer_header> layer = make_layer();
  return layer;
}

const std::string& std_layer_hash() {
  static const std::string hash = [] {
    std::string all;
    for (const auto& h : std_layer()) all += h.name + "\n" + std::to_string(h.text.size()) + "\n" + h.text;
    return sha256_hex(all);
  }();
  return hash;
}

std::optional<std::string> host_only_header(const std::string& header) {
  for (const auto& [name, what] : k_host_only)
    if (header == name) return "<" + header + "> is " + what;
  return std::nullopt;
}

} // namespace bb::source
