#pragma once
/// Runs one configuration: set up, verify, counter pass, timing pass. Never throws for a failure
/// of the configuration itself (bad parameter, wrong result, kernel error): it is recorded.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "profile/session.hpp"
#include "registry/registry.hpp"

namespace bb::launch {

struct exec_options {
  int warmup = 3;
  int samples = 20;
  int counter_launches = 1;
  /// all: bankbench runs each counter pass itself and empties L2 before each, as Nsight Compute
  /// does by default (`--cache-control all`); memory is not restored between passes, which the
  /// kernel library allows (no shared-memory index depends on data). once: one flush, then
  /// CUPTI's kernel replay with memory restored. none: kernel replay on the cache as it is.
  std::string cache_control = "all";
  /// Set up, launch once inside the NVTX range "bankbench-measure", verify; no counters and no
  /// timing: the target process for a Nsight Compute comparison (bench/ncu_parity.py).
  bool launch_once = false;
  std::string nvtx_name; ///< "experiment/variant/params", for Nsight Systems and Compute filters
};

struct config_result {
  std::string status = "ok"; ///< ok, failed, wrong_result, unsupported
  std::string reason;
  verify_result verify;
  std::uint64_t bytes_moved = 0;
  int smem_access_bytes = 4;
  std::vector<profile::range_values> ranges; ///< one per profiled launch; empty without counters
  std::vector<double> samples_ns; ///< per launch: a sample's time over its launches
  int launches_per_sample = 1;    ///< back-to-back launches in one timed sample
  /// Per sample: the SM clock and NVML clock-event reasons read when the host saw it finish.
  std::vector<int> sample_sm_clock_mhz;
  std::vector<std::uint64_t> sample_clock_event_reasons;
  int sm_clock_mhz = 0;
  std::uint64_t clock_event_reasons = 0; ///< every sample's reasons, or-ed
  std::uint64_t host_rss_peak_bytes = 0; ///< this process's peak resident memory after the configuration
  std::uint64_t device_used_bytes = 0;   ///< device memory in use once its buffers were released
  double setup_ms = 0, verify_ms = 0, counter_ms = 0, timing_ms = 0;
  /// The CUDA context is unusable after this configuration (illegal address, trap, assert):
  /// the process must end for later configurations to run.
  bool context_lost = false;
};

/// `counters` may be null (--no-counters). A CUDA error that leaves the context unusable is
/// recorded and flagged in config_result::context_lost.
config_result execute(const variant_info& variant, const nlohmann::json& params, std::uint64_t seed,
                      const exec_options& options, profile::session* counters);

} // namespace bb::launch
