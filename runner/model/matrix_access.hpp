#pragma once
/// Requests of the matrix and asynchronous kinds, and the swizzles their tiles use. C++17 and no
/// CUDA headers: kernels build their access plans with these.
#include <array>
#include <cstdint>

#include "runner/model/warp_access.hpp"

namespace bb::model {

/// CuTe's Swizzle<B, M, S> on a byte offset: bits [M, M + B) XOR bits [M + S, M + S + B).
/// Swizzle<3,4,3> moves each 16-byte chunk of a 128-byte row by the row's index within 8.
constexpr std::uint32_t cute_swizzle(std::uint32_t offset, int b, int m, int s) {
  const std::uint32_t high = ((1u << b) - 1u) << (m + s);
  return offset ^ ((offset & high) >> s);
}

/// TMA's shared-memory swizzle modes: 16-byte chunks XORed within a 32-, 64- or 128-byte span.
enum class tma_swizzle : std::uint8_t { none = 0, b32 = 1, b64 = 2, b128 = 3 };

/// The byte offset where TMA puts the byte at `offset` of the dense box, for `mode`
/// (none: identity; 32B = Swizzle<1,4,3>, 64B = Swizzle<2,4,3>, 128B = Swizzle<3,4,3>).
constexpr std::uint32_t tma_swizzled(std::uint32_t offset, tma_swizzle mode) {
  return mode == tma_swizzle::none ? offset : cute_swizzle(offset, static_cast<int>(mode), 4, 3);
}

/// One ldmatrix/stmatrix (.x1, .x2, .x4; .trans changes no address): lanes 8i..8i+7 give the
/// 16-byte row addresses of matrix i. Each matrix is one 8-lane phase, so an instruction is
/// `matrices` wavefronts when each matrix's rows fall in 8 distinct 16-byte bank groups.
inline warp_access matrix_access(const std::array<std::uint32_t, k_warp_lanes>& row_address, int matrices,
                                 access_kind kind = access_kind::ldsm) {
  warp_access a;
  a.address = row_address;
  a.width = 16;
  a.kind = kind;
  a.active = matrices >= 4 ? 0xffffffffu : (1u << (8 * matrices)) - 1u;
  for (int i = 8 * matrices; i < k_warp_lanes; ++i) a.address[static_cast<std::size_t>(i)] = 0;
  return a;
}

} // namespace bb::model
