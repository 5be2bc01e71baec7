#pragma once
/// Reading results for the commands that compare them (compare, regress, history, report):
/// runs with their architecture, and configurations with their metrics summarised over launches.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runner/store/database.hpp"

namespace bb::store {

/// "sm_90" for a GPU measured with CUPTI; another backend is an architecture of its own: "model"
/// for the bank model (cc 0.0), "<backend>:sm_XY" where it names a compute capability.
std::string architecture(const std::string& backend, int cc_major, int cc_minor);

/// A run as the results commands name it: its GPU, its commit, and what identifies it across
/// databases (GPU uuid and backend, started_at, experiment_sha256, host, Slurm job and task, shard).
struct run_info {
  std::int64_t id = 0;
  std::string started_at, host, git_commit, experiment_name, experiment_sha256;
  run_status status = run_status::running;
  bool git_dirty = false;
  std::int64_t gpu_id = 0;
  std::string gpu_name, gpu_uuid, backend, arch;
  std::int64_t session_id = 0; ///< 0: written before schema version 6 (each such run is a session of its own)
  std::string fingerprint;     ///< empty: not known (before version 6)
  std::string sources_sha256;  ///< empty: not known
  std::int64_t pid = 0;        ///< 0: not known
  std::string slurm_job_id, slurm_array_task_id, cuda_visible_devices, shard;
};

/// One metric of one configuration over its launches.
struct metric_stats {
  double mean = 0, min = 0, max = 0;
  int launches = 0;
};

/// An expectation that a configuration failed: the metric it is about and its text with what was
/// observed ("load_conflicts_per_request < 0.2 (observed 0.5)").
struct failed_expectation {
  std::string metric, text;
};

/// One configuration of one run, ready to be compared with others: its own columns, and its run's
/// experiment and architecture.
struct result_row : stored_configuration {
  std::string experiment, arch;
  std::map<std::string, metric_stats> metrics; ///< by metric name
  std::optional<double> median_ns, bandwidth_gbps;
  std::vector<double> samples_ns;    ///< only when result_query::samples
  std::vector<int> sample_placement; ///< the instance each sample timed, with samples_ns
  /// The median median_ns stores, from the samples: the fastest placement's.
  [[nodiscard]] double sample_median() const;
  std::vector<failed_expectation> failed_expectations;
  int checked_expectations = 0; ///< expectations stored for it, passed or failed
};

/// What read_results() reads besides the configurations themselves.
struct result_query {
  std::vector<std::string> metrics; ///< names to read; empty: every metric
  bool samples = false;             ///< the timing samples too
};

/// `run` as the results commands name it: its fields, and its GPU's name, uuid, backend and architecture.
run_info info_of(const run_detail& run);

/// Every metric name the database holds a value of, sorted: what -m NAME is checked against.
std::vector<std::string> stored_metric_names(const database& db);

/// Every run, oldest first: the runs that database::runs() reads, as info_of() names them.
std::vector<run_info> run_infos(const database& db);

/// The configurations of `run_ids`, run by run in the order given, each in seq order.
std::vector<result_row> read_results(const database& db, const std::vector<std::int64_t>& run_ids,
                                     const result_query& query = {});

} // namespace bb::store
