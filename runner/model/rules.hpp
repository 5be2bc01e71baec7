#pragma once
/// The bank model's rules, their evidence, and how far a measurement may stray from a prediction.
/// Header-only and constexpr, so `bankbench show` (query) can flag mismatches without linking the
/// model. docs/bank-model.md explains each rule with pictures.
///
/// Rules v1, for the 32-bank x 4-byte shared memory of compute capability 5.0 and later. Each is a
/// hypothesis until the GPU sweeps named beside it agree (docs/bank-model.md keeps the status):
///
///  1. Banks. Byte address A lives in bank (A / 4) mod 32. [every sweep; transpose on H200: naive
///     32.06 wf/request, padded 1.006, swizzled 1.006 at n = 1024]
///  2. Words, not lanes, cost. In one phase a bank serves one distinct 4-byte word per wavefront;
///     any number of lanes reading (or writing) the same word share it: broadcast when all lanes
///     read one word, multicast when groups of lanes do. Accesses of 1 and 2 bytes that fall in one
///     word are that word once. [stride sweep: stride 0 (broadcast), pairs sharing words (multicast),
///     char and short strides]
///  3. Phases. A request of width W is split into groups of lanes that ask for at most 128 bytes:
///     the whole warp for W <= 4, half-warps (lanes 0-15, 16-31) for W = 8, quarter-warps (lanes
///     0-7, 8-15, 16-23, 24-31) for W = 16. Each group with an active lane takes
///     max over banks (distinct words it wants from that bank) wavefronts, at least 1; groups do
///     not share wavefronts, even when they read the same words. [stride x width sweep, widths 8
///     and 16, and broadcast at those widths; CC 7.x was reported to pair lanes with equal
///     addresses for LDS.128, which rule 3 does not model]
///  4. Inactive lanes take no part. A request whose lanes are all inactive is not issued: the
///     kernels guard shared accesses with warp-uniform branches (`@p bra` in the PTX), so plans
///     leave such warps out. [transpose at n = 100: edge tiles]
///
/// Definitions the model reports for one request:
///  - wavefronts: the sum of rule 3 over the phases;
///  - ideal wavefronts: ceil(active lanes x W / 128), at least 1 for a request with an active lane
///    (for a full warp this is metrics::ideal_wavefronts_per_request(W));
///  - conflicts: wavefronts - ideal wavefronts (never negative under rules 1-4). For 4-byte requests
///    the hardware counter l1tex__data_bank_conflicts_* matches it (naive transpose: 1050568
///    wavefronts - 32768 requests = 1017800 conflicts, counted); for 8 and 16 bytes the sweeps decide;
///  - conflict degree ("N-way"): the most distinct words one bank must serve in one phase.
namespace bb::model {

inline constexpr int k_rules_version = 1;
inline constexpr const char* k_rules_summary = "rules v1: 32 banks x 4 B, half-warp 8 B, quarter-warp 16 B";

/// How far a measured wavefronts-per-request may be from the prediction before `show` flags it:
/// max(5% of the prediction, 0.25 wavefronts/request).
///
/// The counter is not purely structural. On an H200 it adds shared-memory accesses that lost
/// arbitration, mostly to the kernel's own global traffic once the data outgrows L2 (Nsight Compute
/// reads the same): conflict-free transpose tiles read 1.006 wf/request at n = 1024, 1.07-1.12 at
/// n = 4096, and stay under 1.2 at n = 8192 (the bound experiments/transpose/transpose.yaml
/// checks), so the additive part is up to about 0.2; the 32-way tile reads 32.06 at n = 1024 and
/// 32.43 at n = 4096 (1.3%), so the relative part covers 5%. A real model error moves whole
/// wavefronts (a 2-way conflict adds 1.0 per request), which stays well outside the allowance.
inline constexpr double k_allowance_relative = 0.05;
inline constexpr double k_allowance_absolute = 0.25;

constexpr double allowance(double predicted) {
  const double relative = k_allowance_relative * (predicted < 0 ? -predicted : predicted);
  return relative > k_allowance_absolute ? relative : k_allowance_absolute;
}

/// True when `measured` is within the allowance of `predicted`.
constexpr bool agrees(double measured, double predicted) {
  const double d = measured - predicted;
  return (d < 0 ? -d : d) <= allowance(predicted);
}

} // namespace bb::model
