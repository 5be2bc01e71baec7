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

struct metric_set {
  std::string name;
  std::string description;
  std::vector<std::string> metrics;
};

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

/// Ideal wavefronts for one warp-wide request of `access_bytes` per lane: ceil(32 * width / 128).
double ideal_wavefronts_per_request(int access_bytes);

/// Derived values for one launch. Values whose inputs are missing are left out; a per-request
/// ratio with zero requests is left out too.
std::map<std::string, double> derive(const std::map<std::string, double>& raw, int smem_access_bytes);

} // namespace bb::metrics
