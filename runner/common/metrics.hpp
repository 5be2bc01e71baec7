#pragma once
/// Named CUPTI metric sets and the per-launch values derived from them. No CUDA headers.
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace bb::metrics {

inline constexpr const char* k_ld_requests = "smsp__sass_inst_executed_op_shared_ld.sum";
inline constexpr const char* k_st_requests = "smsp__sass_inst_executed_op_shared_st.sum";
inline constexpr const char* k_ld_wavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
inline constexpr const char* k_st_wavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum";
inline constexpr const char* k_ld_conflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
inline constexpr const char* k_st_conflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";
inline constexpr const char* k_gpu_time = "gpu__time_duration.sum";
// LDS/STS instructions from the hardware's instruction counters: they share one pass with the
// l1tex counters (the SASS-instrumented k_ld_requests/k_st_requests do not), but leave out generic
// LD/ST that reach shared memory. The `quick` set's requests.
inline constexpr const char* k_ld_requests_hw = "smsp__inst_executed_op_shared_ld.sum";
inline constexpr const char* k_st_requests_hw = "smsp__inst_executed_op_shared_st.sum";

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

/// The set an experiment without `metrics:` collects.
inline constexpr const char* k_default_set = "bank_conflicts";

/// The named sets an experiment's `metrics:` may give instead of a list.
const std::vector<metric_set>& named_sets();
/// nullptr when `name` is not a named set.
const metric_set* find_set(const std::string& name);

/// The counters one experiment collects, resolved once as it is loaded: a named set, or a list of
/// CUPTI names written in the file. Its identity is its counters in order: two experiments with
/// the same list share one profiler session, whatever they call it.
class metric_list {
public:
  metric_list() = default;
  /// The named set `set` (find_set must know it).
  static metric_list named(const metric_set& set) { return metric_list(set.name, set.metrics); }
  /// CUPTI names listed in an experiment file.
  static metric_list listed(std::vector<std::string> names) { return metric_list("", std::move(names)); }
  /// The default set, k_default_set.
  static metric_list default_list() { return named(*find_set(k_default_set)); }

  /// The set's name, or "" when the counters were listed.
  [[nodiscard]] const std::string& set_name() const { return m_set; }
  /// CUPTI names, in order.
  [[nodiscard]] const std::vector<std::string>& names() const { return m_names; }
  [[nodiscard]] bool empty() const { return m_names.empty(); }

  friend bool operator==(const metric_list& a, const metric_list& b) { return a.m_names == b.m_names; }
  friend bool operator<(const metric_list& a, const metric_list& b) { return a.m_names < b.m_names; }

private:
  metric_list(std::string set, std::vector<std::string> names) : m_set(std::move(set)), m_names(std::move(names)) {}
  std::string m_set;
  std::vector<std::string> m_names;
};

/// How the results commands judge a metric (regress) and show it.
enum class metric_kind {
  ratio, ///< a per-request counter ratio: gated against the measured noise
  count, ///< a raw counter: compared like a ratio, reported but not gated
  time,  ///< median_ns, bandwidth_gbps: Mann-Whitney U on the samples plus a minimum effect
  other, ///< anything else: shown, never judged
};

/// One name of the one table every part reads: the profiler's derived values, the store's rows,
/// the model's predictions and the results commands' columns.
struct derived_metric {
  std::string name;
  std::string unit;
  std::string description;
  std::string label; ///< column heading ("ld wf/req"); empty: the name itself
  int decimals = 3;
  metric_kind kind = metric_kind::other;
};

/// Values bankbench derives from the raw counters of one launch (e.g. load_wavefronts_per_request).
const std::vector<derived_metric>& derived_metrics();
bool is_derived(const std::string& name);

/// The timing pass's values, stored with each configuration rather than as metrics: median_ns and
/// bandwidth_gbps.
const std::vector<derived_metric>& timing_metrics();

/// `name` in derived_metrics() or timing_metrics(); nullptr for any other name (a raw counter).
const derived_metric* find_metric(std::string_view name);

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
