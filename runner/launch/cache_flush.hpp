#pragma once
/// Empties the device's L2 of everything a configuration touched, before its counter pass, the
/// way Nsight Compute's default `--cache-control all` does before each pass: counts taken on a
/// cold cache do not depend on what ran before (the verification launch, the previous variant).
namespace bb::launch {

/// Reads a buffer twice the size of L2, around L1, (allocated on first use and kept for the process, so it
/// does not show as growth between configurations) and waits for it. Lines left in L2 are clean,
/// so the measured kernel pays no write-back for them. A flush that copied the buffer into shared
/// memory with bulk copies (TMA) was tried, to cost fewer instructions under CUPTI's instruction
/// counters: on an H200 it left 3-12 % extra shared-memory wavefronts in the next kernel
/// (colsum/rows, stride/strided with 16-byte lanes) where Nsight Compute reads none.
void flush_l2();

} // namespace bb::launch
