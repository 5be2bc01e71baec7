#pragma once
/// Runs one configuration: set up, verify, counter pass, timing pass. Never throws for a failure
/// of the configuration itself (bad parameter, wrong result, kernel error): it is recorded.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>

#include "runner/common/status.hpp"
#include "runner/profile/session.hpp"
#include "runner/registry/registry.hpp"

namespace bb::launch {

/// How the counter passes treat the L2 cache (`run --cache-control`); see exec_options::cache_control.
enum class cache_control { all, once, none };

/// "all", "once" or "none"; anything else throws bb::usage_error.
cache_control cache_control_named(const std::string& name);
const char* name_of(cache_control c);

/// Which passes run for each configuration on the GPU (the bank model runs none of them): the one
/// encoding, from `bankbench run`'s flags down to the executor.
struct passes {
  bool counters = true;     ///< the counter pass (CUPTI); false under --no-counters and --launch-once
  bool timing = true;       ///< the timing pass; false under --no-timing and --launch-once
  bool launch_once = false; ///< one verified launch in the NVTX range "bankbench-measure", nothing more

  /// --no-counters, --no-timing and --launch-once as flags.
  static passes from_flags(bool no_counters, bool no_timing, bool launch_once) {
    return {!no_counters && !launch_once, !no_timing && !launch_once, launch_once};
  }
};

struct exec_options {
  launch::passes passes;
  int warmup = 3;
  int samples = 20;
  /// Instances of the configuration the samples are split over, each set up while the ones before
  /// are held, so each has its own place in device memory; the median reported is the fastest
  /// instance's (see store::fastest_placement_median). 1: the verified instance alone.
  int placements = 1;
  /// A timing sample lasts at least this long: a shorter kernel is launched back to back, up to
  /// 64 times, and the sample's time is divided by its launches. A pair of events costs about
  /// 0.5 to 1.5 us beyond the launches it brackets (H200, bench/probes/batch_probe.cu), a share that
  /// changes with the launches per sample; at 200 us it stays under 0.75 % of a sample.
  double min_sample_ns = 200e3;
  int counter_launches = 1;
  /// all: bankbench runs each counter pass itself and empties L2 before each, as Nsight Compute
  /// does by default (`--cache-control all`); memory is not restored between passes, which the
  /// kernel library allows (no shared-memory index depends on data). once: one flush, then
  /// CUPTI's kernel replay with memory restored. none: kernel replay on the cache as it is.
  launch::cache_control cache_control = launch::cache_control::all;
  std::string nvtx_name; ///< execute(): "experiment/variant/params", for Nsight Systems and Compute filters
};

struct config_result {
  config_status status = config_status::ok; ///< ok, failed, wrong_result, unsupported or skipped
  std::string reason;
  verify_result verify;
  std::uint64_t bytes_moved = 0;
  int smem_access_bytes = 4;
  std::string compile_key;                   ///< source variants: the compile cache key; empty when built in
  std::optional<double> compile_ms;          ///< source variants: compile time, 0 on a cache hit
  std::string compiler;                      ///< source variants: "nvrtc 13.0", "nvcc 13.0.88"
  std::string compile_options;               ///< source variants: every flag, the architecture first
  bool unverified = false;                   ///< source variants without a check: stored as unverified, not ok
  std::vector<profile::range_values> ranges; ///< one per profiled launch; empty without counters
  std::vector<double> samples_ns;            ///< per launch: a sample's time over its launches
  std::vector<int> sample_placement;         ///< per sample: the instance (0 = the verified one) it timed
  int launches_per_sample = 1;               ///< back-to-back launches in one timed sample
  /// Per sample: the SM clock and NVML clock-event reasons read when the host saw it finish.
  std::vector<int> sample_sm_clock_mhz;
  std::vector<std::uint64_t> sample_clock_event_reasons;
  int sm_clock_mhz = 0;
  std::uint64_t clock_event_reasons = 0; ///< every sample's reasons, or-ed
  std::uint64_t host_rss_peak_bytes = 0; ///< this process's peak resident memory after the configuration
  std::uint64_t device_used_bytes = 0;   ///< device memory in use once its buffers were released
  std::uint64_t pool_reserved_bytes = 0; ///< then mapped by the buffer pool (0: the driver allocator)
  /// The CUDA error a failure carried (cuda_error::code()); cudaSuccess for any other failure.
  cudaError_t cuda_error = cudaSuccess;
  /// counter_ms: a group's counter passes, shared evenly among the members that have a kernel.
  double setup_ms = 0, verify_ms = 0, counter_ms = 0, timing_ms = 0;
  /// The CUDA context is unusable after this configuration (illegal address, trap, assert):
  /// the process must end for later configurations to run.
  bool context_lost = false;
};

/// Configurations run as a group: each is set up and verified as it is added; finish() then
/// profiles the counter passes of every member in one CUPTI session (with `--cache-control all`,
/// in every pass, an unprofiled launch of the member and an L2 flush before its profiled launch,
/// as Nsight Compute restores memory and flushes before each pass), times each member alone, and frees
/// every buffer. The session's set-up cost, about 3 ms on an H200, is then paid once per group
/// rather than once per configuration. A group closes when its members hold k_group_bytes of
/// device memory or need the profiled ranges (one per launch) a session holds,
/// profile::session::k_capacity. In the other cache-control modes, and with --launch-once, every
/// configuration is a group of its own.
class group {
public:
  static constexpr std::uint64_t k_group_bytes = std::uint64_t{2} << 30;
  static constexpr std::size_t k_group_ranges = profile::session::k_capacity;

  /// `counters` may be null (--no-counters).
  group(const exec_options& options, profile::session* counters);
  ~group();
  group(const group&) = delete;
  group& operator=(const group&) = delete;

  /// A member's result, with the tag it was added with.
  struct finished {
    std::size_t tag;
    config_result result;
  };

  /// Sets up and verifies one configuration. Never throws for a failure of the configuration
  /// itself (bad parameter, wrong result, kernel error): it is recorded in its result. A CUDA error
  /// that leaves the context unusable is flagged in config_result::context_lost; the group must
  /// then be finished at once, and only that member's result comes back (the members before it
  /// cannot be measured on this context any more).
  void add(std::size_t tag, const variant_info& variant, const nlohmann::json& params, std::uint64_t seed,
           const std::string& nvtx_name);
  /// Whether the next configuration should wait for finish().
  [[nodiscard]] bool full() const;
  [[nodiscard]] bool empty() const;
  /// Counter passes (one CUPTI session), timing passes, buffers freed; results in the order added.
  /// `before_timing(tag)`, where given, is called as each member's timing pass begins.
  std::vector<finished> finish(const std::function<void(std::size_t tag)>& before_timing = {});

private:
  struct member;
  void counter_passes();
  void time_member(member& m);
  exec_options m_options;
  profile::session* m_counters;
  std::vector<member> m_members;
  std::uint64_t m_device_bytes = 0;
  std::size_t m_ranges = 0; ///< profiled ranges the members' counter passes need (one per counted launch)
  bool m_context_lost = false;
};

/// One configuration as a group of its own. `counters` may be null (--no-counters).
config_result execute(const variant_info& variant, const nlohmann::json& params, std::uint64_t seed,
                      const exec_options& options, profile::session* counters);

} // namespace bb::launch
