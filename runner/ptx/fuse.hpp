#pragma once
/// Adjacent shared loads and stores as ptxas fuses them into vector accesses (LDS.64/.128,
/// STS.64/.128), so that the model costs the requests the GPU makes (docs/bank-model.md, "In
/// `--backend model`"). No CUDA headers.
#include <cstdint>
#include <vector>

#include "runner/ptx/parse.hpp"
#include "runner/ptx/run.hpp"

namespace bb::ptx {

/// Adjacent scalar shared accesses of one basic block that ptxas may fuse into one vector access.
struct fusion_chunk {
  std::vector<std::uint32_t> members; ///< instruction indices, by ascending offset from the base
  int element_bytes = 4;              ///< of each member (4 or 8)
  [[nodiscard]] int bytes() const { return static_cast<int>(members.size()) * element_bytes; }
};

/// The chunks of one entry, found from its code alone.
struct fusion_plan {
  std::vector<fusion_chunk> chunks; ///< 8 or 16 bytes each; no instruction in two chunks
};

/// Finds runs of `ld.shared` (or `st.shared`) of one width w (4 or 8 bytes; v2 of 4 bytes counts
/// as 8) on one base register or symbol, with immediate offsets that together are contiguous, in
/// one basic block, under one guard, with no barrier, fence, branch target, write of the base or
/// the guard, or possibly aliasing access (a store between loads; any other access between stores)
/// among them. Each run is cut into chunks of 16 (else 8) bytes whose first offset is a multiple
/// of the chunk's size.
fusion_plan plan_fusion(const entry& e);

/// `events` with the accesses of each chunk that every execution made aligned (every lane's
/// address at the chunk's first element a multiple of its size) merged: one event per (warp,
/// lane, execution) at the chunk's lowest instruction index, of the chunk's width, at its lowest
/// address. A 16-byte chunk that is not aligned everywhere is tried as two 8-byte halves. ptxas
/// fuses what it can prove aligned; alignment at run time is the stand-in for that proof.
std::vector<shared_event> fuse_adjacent(const fusion_plan& plan, std::vector<shared_event> events);

/// plan_fusion(e), then fuse_adjacent with it.
std::vector<shared_event> fuse_adjacent(const entry& e, std::vector<shared_event> events);

} // namespace bb::ptx
