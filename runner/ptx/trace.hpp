#pragma once
/// The shared-memory events of a CTA run as warp requests, costed by the bank model and summed
/// per instruction and per source line (docs/bank-model.md, "Predicting from the kernel's code
/// (PTX)").
#include <cstdint>
#include <vector>

#include "runner/model/evaluate.hpp"
#include "runner/model/warp_access.hpp"
#include "runner/ptx/run.hpp"

namespace bb::ptx {

/// One warp request: the lanes of one warp that made their n-th execution of one instruction.
struct warp_request {
  std::uint32_t warp = 0, instruction = 0, execution = 0;
  std::uint8_t part = 0; ///< shared_event::part
  model::warp_access access;
  /// A further part of another request: its wavefronts count, it is no request of its own.
  [[nodiscard]] bool continues() const { return part != 0; }
};

/// Groups events by (warp, instruction, n-th execution, part), in that order. Lanes that did not make
/// that execution are inactive. cp.async requests get `source_lines` (distinct 128-byte global
/// lines their lanes read) and `l1_bypass` (.cg) as kernels/cp_async's access plans set them. Throws ptx_error when one request mixes widths or kinds.
std::vector<warp_request> warp_requests(const std::vector<shared_event>& events);

/// Requests, wavefronts and ideal wavefronts of one instruction or one source line.
struct cost_sum {
  int file = 0, line = 0;        ///< source location (.loc); 0 when the PTX has none
  std::uint32_t instruction = 0; ///< index into entry::body (per-instruction sums only)
  int ptx_line = 0;              ///< per-instruction sums only
  model::access_kind kind = model::access_kind::load;
  std::uint64_t requests = 0, wavefronts = 0, ideal_wavefronts = 0;
  [[nodiscard]] std::uint64_t excess() const { return wavefronts - ideal_wavefronts; }
};

struct trace_costs {
  std::vector<cost_sum> per_instruction; ///< by instruction index
  std::vector<cost_sum> per_line;        ///< by (file, line, kind)
};

/// Evaluates every request with model::evaluate under `rules` and sums them.
trace_costs cost(const entry& e, const std::vector<warp_request>& requests, model::rule_set rules = model::k_rules);

} // namespace bb::ptx
