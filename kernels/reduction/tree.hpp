#pragma once
// The reduction family's index functions, shared by the kernels (nvcc), the access plans and the
// host tests (the C++ compiler alone). A Tree says, for one block of `block` threads whose word
// tid holds thread tid's value, which threads add which word at each step (Harris, "Optimizing
// Parallel Reduction in CUDA", kernels 1-3).
#include "kernels/common/host_device.hpp"

namespace bb::reduction {

/// log2 of a power of two.
BB_HD constexpr int log2_exact(int v) {
  int l = 0;
  while ((1 << l) < v) ++l;
  return l;
}

/// Interleaved addressing with a divergent branch: stride 1, 2, 4, ...; thread tid works when
/// tid % (2s) == 0 and adds word tid + s into word tid.
struct interleaved_divergent_tree {
  BB_HD static constexpr int stride(int step, int /*block*/) { return 1 << step; }
  BB_HD static constexpr bool active(int tid, int s, int /*block*/) { return tid % (2 * s) == 0; }
  BB_HD static constexpr int target(int tid, int /*s*/) { return tid; }
};

/// Interleaved addressing with a strided index: stride 1, 2, 4, ...; thread tid adds word
/// 2*s*tid + s into word 2*s*tid while that is inside the block.
struct interleaved_strided_tree {
  BB_HD static constexpr int stride(int step, int /*block*/) { return 1 << step; }
  BB_HD static constexpr bool active(int tid, int s, int block) { return 2 * s * tid < block; }
  BB_HD static constexpr int target(int tid, int s) { return 2 * s * tid; }
};

/// Sequential addressing: stride block/2, block/4, ..., 1; thread tid < s adds word tid + s into word tid.
struct sequential_tree {
  BB_HD static constexpr int stride(int step, int block) { return block >> (step + 1); }
  BB_HD static constexpr bool active(int tid, int s, int /*block*/) { return tid < s; }
  BB_HD static constexpr int target(int tid, int /*s*/) { return tid; }
};

} // namespace bb::reduction
