#pragma once
/// The launch shape of the grid-stride loops in kernels/common (inputs written, outputs checked).
#include <cstddef>

namespace bb {

/// Blocks of `threads` for a grid-stride loop over `count` elements: a thread per element, up to
/// 65536 blocks; past that each thread takes several.
inline int grid_stride_blocks(std::size_t count, int threads) {
  const std::size_t wanted = (count + threads - 1) / threads;
  return static_cast<int>(wanted < 65536 ? wanted : 65536);
}

} // namespace bb
