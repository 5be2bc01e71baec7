#pragma once
/// Whether every CTA of a launch makes the same shared-memory requests, read from the decoded
/// entry (docs/bank-model.md, "Blocks that do the same work"). Where they do, one block run gives
/// the launch's counts exactly: the others are the same block again. No CUDA headers.
#include <cstdint>
#include <string>

#include "runner/ptx/program.hpp"

namespace bb::ptx {

struct alike_blocks {
  bool alike = false;
  /// Where not: the first instruction found whose shared access, branch or barrier may differ
  /// between blocks, and why ("its address depends on %ctaid or on global memory").
  std::uint32_t instruction = 0;
  std::string why;
};

/// Follows every value that may differ from one block to another (%ctaid, %clock, anything read
/// from global memory or from memory such a value was written to) through the entry's registers,
/// flow-insensitively and to a fixed point. The blocks are alike when no branch, exit, barrier or
/// warp-wide instruction is guarded by such a value and no shared-memory access (ld, st, atom,
/// red, cp.async, ldmatrix, stmatrix, and generic ones that may land in shared memory) has such a
/// value in its address or guard: then every block takes the same path and touches the same shared
/// bytes in the same order. Conservative: a kernel it calls not alike may still be.
alike_blocks blocks_alike(const program& p);

} // namespace bb::ptx
