#pragma once
/// Named CUPTI metric sets and the per-launch values derived from them. No CUDA headers.
#include <map>
#include <string>
#include <vector>

namespace bb::metrics {

inline constexpr const char* k_ld_requests = "smsp__sass_inst_executed_op_shared_ld.sum";
inline constexpr const char* k_st_requests = "smsp__sass_inst_executed_op_shared_st.sum";
inline constexpr const char* k_ld_wavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
inline constexpr const char* k_st_wavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum";
inline constexpr const char* k_ld_conflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
inline constexpr const char* k_st_conflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";
inline constexpr const char* k_gpu_time = "gpu__time_duration.sum";

// Per-kind counters (docs/bank-model.md, "Access kinds"). The hardware op_ld/op_st counters
// include ldmatrix/stmatrix, the SASS per-instruction ones separate them: LDS = op_ld - LDSM.
inline constexpr const char* k_ldsm_requests = "smsp__inst_executed_op_ldsm.sum";
inline constexpr const char* k_ldsm_wavefronts = "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum";
inline constexpr const char* k_ldsm_conflicts = "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum";
inline constexpr const char* k_stsm_requests = "smsp__inst_executed_op_shared_stsm.sum";
inline constexpr const char* k_stsm_wavefronts = "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum";
inline constexpr const char* k_stsm_conflicts = "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_stsm.sum";
inline constexpr const char* k_atom_requests = "smsp__sass_inst_executed_op_shared_atom.sum";
inline constexpr const char* k_atom_wavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum";
inline constexpr const char* k_atom_conflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum";
inline constexpr const char* k_ldgsts_requests = "smsp__inst_executed_op_ldgsts.sum";
inline constexpr const char* k_ldgsts_wavefronts = "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum";
inline constexpr const char* k_ldgsts_conflicts =
    "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum";
inline constexpr const char* k_gmma_requests = "sm__sass_inst_executed_op_shared_gmma.sum";
inline constexpr const char* k_gmma_wavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum";
inline constexpr const char* k_gmma_conflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_gmma.sum";
inline constexpr const char* k_tma_ld_requests = "smsp__inst_executed_op_tma_ld.sum";
inline constexpr const char* k_tma_st_requests = "smsp__inst_executed_op_tma_st.sum";
inline constexpr const char* k_arbitration_conflicts = "l1tex__data_bank_conflicts_type_arbitration.sum";

struct metric_set {
  std::string name;
  std::string description;
  std::vector<std::string> metrics;
};

/// Counters some chips lack (GA100: STSM, GMMA, TMA, arbitration; GB100: GMMA). A named set may
/// list them: a session drops those its chip does not know, so their values are absent, never 0.
bool is_chip_optional(const std::string& metric);

/// The named sets an experiment's `metrics:` may give instead of a list.
const std::vector<metric_set>& named_sets();
/// nullptr when `name` is not a named set.
const metric_set* find_set(const std::string& name);

struct derived_metric {
  std::string name;
  std::string unit;
  std::string description;
};

/// Values bankbench derives from the raw counters of one launch (e.g. load_wavefronts_per_request).
const std::vector<derived_metric>& derived_metrics();
bool is_derived(const std::string& name);

/// One kind of shared-memory access and the raw counters it is derived from ("" where none).
struct access_kind {
  const char* name;  ///< prefix of its derived metrics: "ldsm" -> ldsm_wavefronts_per_request
  const char* label; ///< column heading in `show`
  const char* description;
};
/// lds, ldsm, sts, stsm, atom, ldgsts, gmma, tma (instructions only) in display order.
const std::vector<access_kind>& access_kinds();

/// Ideal wavefronts for one warp-wide request of `access_bytes` per lane: ceil(32 * width / 128).
double ideal_wavefronts_per_request(int access_bytes);

/// Derived values for one launch. Values whose inputs are missing are left out; a per-request
/// ratio with zero requests is left out too.
std::map<std::string, double> derive(const std::map<std::string, double>& raw, int smem_access_bytes);

} // namespace bb::metrics
