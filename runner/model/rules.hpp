#pragma once
/// The bank model's rules, their evidence, and how far a measurement may stray from a prediction.
/// Header-only and constexpr, so `bankbench show` (query) can flag mismatches without linking the
/// model. docs/bank-model.md explains each rule with pictures.
///
/// Rules v2, for the 32-bank x 4-byte shared memory of compute capability 5.0 and later, with the
/// wide-access rule measured on Hopper (H200, GH100, driver 580.159.04, CUDA 13.0, 2026-11-21).
/// docs/bank-model.md keeps each rule's status and the evidence tables:
///
///  1. Banks. Byte address A lives in bank (A / 4) mod 32. [every sweep; transpose on H200: naive
///     32.06 wf/request, padded 1.006, swizzled 1.006 at n = 1024]
///  2. Words, not lanes, cost. In one phase a bank serves one distinct 4-byte word per wavefront;
///     any number of lanes reading (or writing) the same word share it: broadcast when all lanes
///     read one word, multicast when groups of lanes do. Accesses of 1 and 2 bytes that fall in one
///     word are that word once. [stride and padding sweeps, widths 1-4: all 281 load and 281 store
///     rows within the allowance]
///  3. Phases. A request of width W is split into groups of lanes: the whole warp for W <= 4,
///     half-warps (lanes 0-15, 16-31) for W = 8, quarter-warps (0-7, 8-15, 16-23, 24-31) for
///     W = 16. Each group with an active lane takes max over banks (distinct words it wants from
///     that bank) wavefronts; groups never share a wavefront, even when they read the same words.
///     [stride sweep: every strided row at 8 and 16 B (64 strides each) exact; padding sweep:
///     every double and float4 column and row, loads and stores, exact; probe: all 53 store
///     patterns of 8 and 16 B exact, e.g. an 8-byte broadcast store takes 2, a 16-byte one 4]
///  3b. Paired loads (new in v2). A LOAD of 8 or 16 bytes in which every pair of lanes (2i, 2i + 1)
///     asks for one address (inactive lanes do not count: a pair with one active lane qualifies)
///     is served in groups twice as wide: the whole warp for 8 bytes, half-warps for 16 bytes,
///     then as in rule 3. Stores never pair. [H200: stride/multicast (lanes 2g, 2g + 1 share) reads
///     1, 2, 4, 8, 16, 16 wf/request at 8 B and 2, 4, 8, 16, 16, 16 at 16 B for strides 1, 2, 4,
///     8, 16, 32, and 1 (8 B) and 2 (16 B) at strides 3, 5, 33, where rule 3 alone says 2 and 4;
///     broadcast reads 1 (8 B) and 2 (16 B), not 2 and 4. Probe (bench/probes/wide_probe.cu,
///     106 rows, 2026-11-21): lanes l and l + 16 sharing (not a pair)
///     read 2 at 8 B, lanes l, l + 8, l + 16, l + 24 sharing read 4 at 16 B (rule 3); the same 128
///     bytes read by lanes 0-7 and 16-23 without pairing take 2, with odd lanes inactive and even
///     lanes distinct take 1; a pair-shared request with one unpaired lane falls back to rule 3]
///  4. Inactive lanes take no part. A request whose lanes are all inactive is not issued: the
///     kernels guard shared accesses with warp-uniform branches (`@p bra` in the PTX), so plans
///     leave such warps out. [transpose at n = 100: edge tiles]
///
/// Both stride families and the padding kernels issue plain LDS.64 / LDS.128 (and STS.64 /
/// STS.128) with a per-lane register address (cuobjdump -sass, sm_90): the instruction is the same,
/// only the lane-to-address pattern differs, and rule 3b is what separates them.
///
/// Definitions the model reports for one request:
///  - wavefronts: the sum of rule 3 over the groups;
///  - ideal wavefronts: the groups with an active lane (1 for W <= 4, 2 for a full-warp 8-byte
///    request, 4 for 16 bytes, 1 and 2 when rule 3b pairs them). The hardware conflict counter
///    l1tex__data_bank_conflicts_* reads exactly wavefronts - ideal at every width [H200: every
///    stride, padding and probe row; e.g. 8-byte lanes 0-7 and 16-23 take 2 wavefronts, 0
///    conflicts]. Rules v1 used ceil(active lanes x W / 128), which the counter contradicts there;
///  - conflicts: wavefronts - ideal wavefronts (never negative);
///  - conflict degree ("N-way"): the most distinct words one bank must serve in one group.
///
/// Rules v1 (rules 1-4 without 3b, and the lane-count ideal) stay available as rule_set::v1.
namespace bb::model {

inline constexpr int k_rules_version = 2;
inline constexpr const char* k_rules_summary =
    "rules v2: 32 banks x 4 B, half-warp 8 B, quarter-warp 16 B, paired loads twice as wide";

/// Which rules evaluate() applies; the model backend stores its predictions under the GPU entry
/// model-rules-<k_rules_version>, so databases written under v1 keep their label.
enum class rule_set : int { v1 = 1, v2 = 2 };
inline constexpr rule_set k_rules = rule_set::v2;

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

/// True when `measured` is within the allowance of `predicted`. `arbitration`: conflicts per
/// request that lost arbitration rather than had an address cause (Hopper's
/// l1tex__data_bank_conflicts_type_arbitration, over the same requests), which the model cannot
/// predict: they widen the allowance upwards only. Kernels that write shared memory with TMA or
/// cp.async while other warps read it lose most (an H100 read 4.44 wavefronts per request for the
/// conflict-free 128B-swizzled read-back of experiments/tma with 0.56 arbitration conflicts per
/// request).
constexpr bool agrees(double measured, double predicted, double arbitration = 0) {
  const double d = measured - predicted;
  return d < 0 ? -d <= allowance(predicted) : d <= allowance(predicted) + (arbitration > 0 ? arbitration : 0);
}

} // namespace bb::model
