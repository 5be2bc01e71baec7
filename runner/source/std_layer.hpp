#pragma once
/// The standard-header layer NVRTC gets: `<cstdint>`, `<type_traits>`, `<cassert>`, ... given to
/// NVRTC as in-memory headers, each mapped onto libcu++ (`<cuda/std/...>`) so that `std::` names
/// and the C macros work in a kernel file written for nvcc. NVRTC ships none of them. Headers that
/// only make sense on a host (`<iostream>`, `<vector>`, ...) are not in the layer: a kernel that
/// includes one needs nvcc (`compiler: auto` falls back to it).
#include <optional>
#include <string>
#include <vector>

namespace bb::source {

struct layer_header {
  std::string name; ///< as included: "cstdint", "stdint.h"
  std::string text;
};

/// Every header of the layer, in a fixed order.
const std::vector<layer_header>& std_layer();

/// SHA-256 over the layer's names and texts: part of every NVRTC cache key, so a change to the
/// layer recompiles.
const std::string& std_layer_hash();

/// Why `header` (as written between <>) cannot be compiled by NVRTC, or nothing when bankbench
/// does not know it to be host-only: "<iostream> is host I/O".
std::optional<std::string> host_only_header(const std::string& header);

} // namespace bb::source
