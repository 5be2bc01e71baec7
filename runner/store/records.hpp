#pragma once
/// What bankbench writes to and reads from the results database (schemas/store.sql).
/// Plain values only; times are ISO-8601 UTC text as utc_now_iso8601() makes them.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runner/common/status.hpp"

namespace bb::store {

/// One GPU as the profiler (or the model) sees it; (uuid, backend) identifies it.
struct gpu_record {
  std::string uuid, name, chip;
  int cc_major = 0, cc_minor = 0, sm_count = 0;
  std::uint64_t memory_bytes = 0, l2_bytes = 0;
  int sm_clock_max_mhz = 0, mem_clock_max_mhz = 0;
  std::string driver_version;                            ///< "580.159.04"
  int cuda_driver_version = 0, cuda_runtime_version = 0; ///< 13000 for CUDA 13.0
  std::string backend = "cupti";                         ///< "cupti": measured; "model": predicted
};

/// What a run was asked to do, written before its first configuration.
struct run_record {
  std::string started_at, host, git_commit;
  bool git_dirty = false;
  std::string bankbench_version, experiment_name, experiment_path, experiment_text, experiment_sha256, command_line,
      metric_set;
  std::vector<std::string> metrics; ///< CUPTI metric names, stored as a JSON list
  std::uint64_t seed = 0;
  int warmup = 0, samples = 0;
  // Schema version 6. Empty text and 0 are stored as NULL.
  std::int64_t session_id = 0; ///< the sessions row of the `bankbench run` that made the run
  std::int64_t pid = 0;        ///< the process that wrote the run
  std::string sources_sha256;  ///< the kernel and runner sources built into this bankbench
  std::string fingerprint;     ///< what was measured (run_fingerprint()); runs that differ are never repeats
  std::string slurm_job_id, slurm_array_task_id, cuda_visible_devices, shard;
  // Schema version 9.
  std::string kind = "run";      ///< "run": an experiment of `bankbench run`; "attach": `bankbench attach`
  std::string working_directory; ///< attach: where the program ran; empty: NULL
};

/// One `bankbench run` invocation, written before its first run.
struct session_record {
  std::string started_at, host, command_line;
  std::int64_t pid = 0;
};

/// One metric of one launch: a raw CUPTI counter (derived = false) or a value bankbench computed.
struct metric_value {
  std::string name, unit;
  double value = 0;
  bool derived = false;
};

struct launch_record {
  int launch_index = 0;
  std::vector<metric_value> values;
};

/// Event-timed samples outside the profiler and their summary (see summarize_samples).
struct timing_record {
  std::vector<double> samples_ns;
  double median_ns = 0, min_ns = 0, max_ns = 0, mean_ns = 0, stddev_ns = 0;
  double spread = 0;                          ///< (max_ns - min_ns) / median_ns
  int sm_clock_mhz = 0, sm_clock_max_mhz = 0; ///< 0: unknown, stored as NULL
  bool throttled = false;
  std::string throttle_reasons;
  double bandwidth_gbps = 0; ///< bytes_moved / median_ns
  /// Per sample, read when the host saw it finish: SM clock (0: unknown) and throttle state.
  std::vector<int> sample_sm_clock_mhz;
  std::vector<unsigned char> sample_throttled;
  int throttled_samples = 0;
  int launches_per_sample = 1; ///< back-to-back launches one sample timed; samples are per launch
  /// Per sample: the instance of the configuration it timed (0 = the verified one); how many.
  std::vector<int> sample_placement;
  int placements = 1;
};

/// One `expect:` check of the experiment, evaluated for one configuration.
struct expectation_record {
  std::string metric, text;
  std::optional<double> observed; ///< empty when the metric was not measured
  bool passed = false;
};

/// One point of the sweep with everything measured for it; written in one transaction.
struct configuration_record {
  int seq = 0;                    ///< 0-based position in the run
  std::string variant, family;    ///< variant is the full id "family/name"
  std::string params_json = "{}"; ///< canonical JSON object, keys sorted
  config_status status = config_status::ok;
  std::string reason; ///< why the status is not ok
  std::uint64_t bytes_moved = 0;
  int smem_access_bytes = 4;
  std::uint64_t verified_elements = 0, mismatched_elements = 0;
  std::string started_at, finished_at;
  std::uint64_t host_rss_peak_bytes = 0; ///< peak resident memory of the measuring process; 0: unknown
  std::uint64_t device_used_bytes = 0;   ///< device memory in use after release; 0: unknown
  std::uint64_t pool_reserved_bytes = 0; ///< then mapped by the buffer pool; 0: none (stored as NULL)
  std::string compile_key;               ///< source variants: the compile cache key; empty: built in (NULL)
  std::optional<double> compile_ms;      ///< source variants: compile time, 0 on a cache hit
  std::string compiler;                  ///< source variants: "nvrtc 13.0", "nvcc 13.0.88"; empty: NULL
  std::string compile_options;           ///< source variants: every flag; empty: NULL
  std::vector<launch_record> launches;
  std::optional<timing_record> timing;
  std::vector<expectation_record> expectations;
};

// ---- read back ----

/// A GPU with its row id, for `bankbench list gpus`.
struct gpu_row {
  std::int64_t id = 0;
  gpu_record gpu;
  std::string first_seen_at;
  int runs = 0;
};

/// One run in full with its GPU, for `bankbench show`: the one read model of the runs table, which
/// runs(), run() and run_infos() all read (store/read_model.hpp). Columns a database from before
/// schema version 6 lacks read as "" and 0; from before version 9, kind reads "run".
struct run_detail {
  std::int64_t id = 0;
  std::string finished_at;
  run_status status = run_status::running;
  run_record run;
  /// Schema version 9, attach runs: the program's exit code, 128 + signal when a signal ended it;
  /// empty while it runs or when unknown.
  std::optional<int> program_exit;
  std::string note; ///< how the run ended in words; empty: nothing to say
  std::int64_t gpu_id = 0;
  gpu_record gpu;
};

/// One run with its counts, for `bankbench list runs` and the runs `techniques` chooses from.
struct run_row : run_detail {
  int configurations = 0;
  int failed_configurations = 0; ///< status other than ok, skipped, not_modelled and unverified
  int failed_expectations = 0;
};

/// A configurations.status value read back from `path`: the schema's check admits no other, so
/// any other text is a store_error.
config_status status_read(const std::string& text, const std::string& path);

/// A runs.status or sessions.status value read back from `path`, likewise.
run_status run_status_read(const std::string& text, const std::string& path);

/// One configuration's own columns as stored: the one read model of the configurations table,
/// which configurations() and read_results() share (store/read_model.hpp).
struct stored_configuration {
  std::int64_t id = 0, run_id = 0;
  int seq = 0;
  std::string variant, family, params_json;
  config_status status = config_status::ok;
  std::string reason;
  std::uint64_t bytes_moved = 0;
  int smem_access_bytes = 0;
  std::uint64_t verified_elements = 0, mismatched_elements = 0;
};

/// One configuration as `bankbench show` prints it.
struct configuration_row : stored_configuration {
  std::map<std::string, double> metric_means;   ///< every metric by name, mean over launches
  std::optional<timing_record> timing;          ///< summary only: samples_ns is left empty
  std::vector<expectation_record> expectations; ///< in the experiment's order
};

} // namespace bb::store
