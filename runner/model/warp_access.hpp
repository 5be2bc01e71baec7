#pragma once
/// One warp-wide shared-memory request, as the bank model sees it. C++17 and no CUDA headers:
/// kernels/ reach this header through registry/registry.hpp, and nvcc compiles them as C++17.
#include <array>
#include <cstdint>

namespace bb::model {

inline constexpr int k_warp_lanes = 32;
inline constexpr int k_banks = 32;
inline constexpr int k_bank_bytes = 4;
/// What one wavefront can serve: one 4-byte word from each of the 32 banks.
inline constexpr int k_wavefront_bytes = k_banks * k_bank_bytes;

/// What instruction makes the request (docs/bank-model.md, "Access kinds"): LDS/STS; ldmatrix and
/// stmatrix (width 16, one 8-lane phase of row addresses per matrix); shared atomics, whose lanes
/// at one address are served one at a time; cp.async destinations (LDGSTS, a store of the width);
/// wgmma operand reads (GMMA: 8-row x 16-byte core matrices, one 8-lane phase each, as ldmatrix).
enum class access_kind : std::uint8_t { load, store, ldsm, stsm, atom, ldgsts, gmma };

/// The instruction a kind names, for pictures: "load", "store", "ldmatrix", "stmatrix", "atomic",
/// "cp.async", "wgmma".
constexpr const char* kind_label(access_kind k) {
  switch (k) {
  case access_kind::load: return "load";
  case access_kind::store: return "store";
  case access_kind::ldsm: return "ldmatrix";
  case access_kind::stsm: return "stmatrix";
  case access_kind::atom: return "atomic";
  case access_kind::ldgsts: return "cp.async";
  case access_kind::gmma: return "wgmma";
  }
  return "load";
}

/// One shared-memory instruction executed by one warp.
struct warp_access {
  std::array<std::uint32_t, k_warp_lanes> address{}; ///< byte offset into shared memory, per lane
  std::uint32_t active = 0xffffffffu;                ///< bit i set: lane i takes part
  int width = 4; ///< bytes per lane: 1, 2, 4, 8 or 16; addresses are multiples of it
  access_kind kind = access_kind::load;
  /// cp.async (ldgsts) only: distinct 128-byte global lines the active lanes read (0: not given).
  /// Its shared-side wavefronts are at least this many (docs/bank-model.md, "Access kinds").
  int source_lines = 0;
  /// cp.async.cg only (the global read bypasses L1): the hardware counts none of its excess
  /// wavefronts as bank conflicts (docs/bank-model.md, "Access kinds").
  bool l1_bypass = false;

  friend bool operator==(const warp_access& a, const warp_access& b) {
    return a.active == b.active && a.width == b.width && a.kind == b.kind && a.address == b.address &&
           a.source_lines == b.source_lines && a.l1_bypass == b.l1_bypass;
  }
};

/// The bank that holds byte `address`: 4-byte words are dealt round-robin over the 32 banks.
constexpr int bank_of(std::uint32_t address) { return static_cast<int>((address / k_bank_bytes) % k_banks); }

/// Lanes served as one group by default (rule 3 in rules.hpp): the whole warp up to 4 bytes,
/// half-warps for 8 bytes, quarter-warps for 16 bytes, so that a group never asks for more than
/// 128 bytes. Rules v2 doubles the group for loads whose lane pairs share addresses (rule 3b).
constexpr int lanes_per_phase(int width) { return width <= 4 ? k_warp_lanes : k_wavefront_bytes / width; }

/// True when, in every pair of lanes (2i, 2i + 1), the active lanes ask for one address: both
/// inactive, one active, or both at the same address (rule 3b in rules.hpp).
constexpr bool lane_pairs_share(const std::array<std::uint32_t, k_warp_lanes>& address, std::uint32_t active) {
  for (int i = 0; i < k_warp_lanes; i += 2)
    if ((active >> i & 3u) == 3u && address[static_cast<std::size_t>(i)] != address[static_cast<std::size_t>(i + 1)])
      return false;
  return true;
}

/// True for the widths a shared-memory instruction can move per lane.
constexpr bool valid_width(int width) { return width == 1 || width == 2 || width == 4 || width == 8 || width == 16; }

} // namespace bb::model
