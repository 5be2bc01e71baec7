#pragma once
/// The cost of one warp request under the rules of model/rules.hpp.
#include <array>
#include <vector>

#include "runner/model/rules.hpp"
#include "runner/model/warp_access.hpp"

namespace bb::model {

/// What one request costs (definitions in rules.hpp).
struct access_cost {
  int active_lanes = 0;
  int wavefronts = 0;       ///< data-stage passes the request needs; 0 when no lane is active
  int ideal_wavefronts = 0; ///< phases with an active lane (rules v1: ceil(active lanes x width / 128))
  int conflicts = 0;        ///< wavefronts - ideal_wavefronts
  int degree = 0;           ///< "N-way": the most distinct words one bank serves in one phase
  friend bool operator==(const access_cost&, const access_cost&) = default;
};

/// Evaluates `a`. Throws std::invalid_argument for a width other than 1, 2, 4, 8, 16 or an active
/// lane whose address is not a multiple of the width (the hardware faults on those).
access_cost evaluate(const warp_access& a, rule_set rules = k_rules);

/// The ideal wavefronts of request `a` (evaluated as `c`) as the SASS per-instruction counter
/// (smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal, Nsight Compute's "L1 Wavefronts Shared
/// Ideal") counts them, for per-line rows. It differs from the range profiler's ideal
/// (access_cost::ideal_wavefronts) for 8- and 16-byte loads whose lane pairs share an address,
/// which the range profiler's ideal serves in phases of twice the lanes: the SASS counter takes the
/// request's wavefronts, but no more than the phases of the width's own lanes (16 at 8 bytes, 8 at
/// 16) with an active lane. An H100 measured it so for stride's broadcast and multicast at widths 8
/// and 16 (docs/bank-model.md); every other request as access_cost.
int instruction_ideal_wavefronts(const warp_access& a, const access_cost& c);

/// Per bank, in one phase: the lanes that touch it and the distinct words it must serve.
struct phase_banks {
  int first_lane = 0, lanes = 0; ///< the phase is lanes [first_lane, first_lane + lanes)
  std::array<int, k_banks> lanes_per_bank{};
  std::array<int, k_banks> words_per_bank{};
};

/// The per-bank detail behind evaluate(), one entry per phase that has an active lane (slow; for
/// bankmap and tests).
std::vector<phase_banks> bank_detail(const warp_access& a, rule_set rules = k_rules);

} // namespace bb::model
