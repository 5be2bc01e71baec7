#include "launch/executor.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <memory>

#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>
#include <spdlog/spdlog.h>

#include "common/error.hpp"
#include "launch/cache_flush.hpp"
#include "launch/cuda_call.hpp"
#include "launch/nvml.hpp"

namespace bb::launch {

namespace {

using clock_type = std::chrono::steady_clock;
double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

struct nvtx_range {
  explicit nvtx_range(const std::string& name) { nvtxRangePushA(name.c_str()); }
  ~nvtx_range() { nvtxRangePop(); }
  nvtx_range(const nvtx_range&) = delete;
  nvtx_range& operator=(const nvtx_range&) = delete;
};

struct event_pair {
  cudaEvent_t start = nullptr, stop = nullptr;
  event_pair() {
    BB_CUDA_CALL(cudaEventCreate(&start));
    BB_CUDA_CALL(cudaEventCreate(&stop));
  }
  ~event_pair() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  event_pair(const event_pair&) = delete;
  event_pair& operator=(const event_pair&) = delete;
};

// A sample lasts at least this long: CUDA events resolve about 0.5 us, 2.5 % of a 20 us kernel, so
// shorter kernels are timed as a batch of back-to-back launches per sample (as nvbench does).
constexpr double k_min_sample_ns = 50e3;
constexpr int k_max_launches_per_sample = 64;

// Launches per sample, from one timed launch after the warm-up.
int launches_per_sample(problem& p) {
  event_pair probe;
  BB_CUDA_CALL(cudaEventRecord(probe.start, nullptr));
  p.launch(nullptr);
  BB_CUDA_CALL(cudaEventRecord(probe.stop, nullptr));
  BB_CUDA_CALL(cudaEventSynchronize(probe.stop));
  float ms = 0;
  BB_CUDA_CALL(cudaEventElapsedTime(&ms, probe.start, probe.stop));
  const double ns = std::max(1.0, static_cast<double>(ms) * 1e6);
  return static_cast<int>(std::clamp(std::ceil(k_min_sample_ns / ns), 1.0, double{k_max_launches_per_sample}));
}

// Each sample is bracketed by its own events, so one slow batch shows as one slow sample; a
// sample's time is per launch. Every sample is enqueued first; the host then waits for each in
// turn and reads the clock and the throttle reasons as it sees the sample finish, so marking
// samples adds no gap between launches.
void timing_pass(problem& p, const exec_options& o, config_result& r) {
  std::vector<std::unique_ptr<event_pair>> events;
  for (int i = 0; i < o.samples; ++i) events.push_back(std::make_unique<event_pair>());
  for (int i = 0; i < o.warmup; ++i) p.launch(nullptr);
  r.launches_per_sample = launches_per_sample(p);
  for (auto& e : events) {
    BB_CUDA_CALL(cudaEventRecord(e->start, nullptr));
    for (int k = 0; k < r.launches_per_sample; ++k) p.launch(nullptr);
    BB_CUDA_CALL(cudaEventRecord(e->stop, nullptr));
  }
  const auto& smi = nvml::instance();
  for (auto& e : events) {
    BB_CUDA_CALL(cudaEventSynchronize(e->stop));
    r.sample_sm_clock_mhz.push_back(smi.sm_clock_mhz());
    r.sample_clock_event_reasons.push_back(smi.clock_event_reasons());
    r.clock_event_reasons |= r.sample_clock_event_reasons.back();
  }
  BB_CUDA_CALL(cudaDeviceSynchronize());
  r.sm_clock_mhz = r.sample_sm_clock_mhz.empty() ? smi.sm_clock_mhz()
                                                 : *std::max_element(r.sample_sm_clock_mhz.begin(),
                                                                     r.sample_sm_clock_mhz.end());
  for (auto& e : events) {
    float ms = 0;
    BB_CUDA_CALL(cudaEventElapsedTime(&ms, e->start, e->stop));
    r.samples_ns.push_back(static_cast<double>(ms) * 1e6 / r.launches_per_sample);
  }
}

void run_passes(problem& p, const exec_options& o, profile::session* counters, config_result& r) {
  auto t0 = clock_type::now();
  p.poison_output();
  {
    nvtx_range measured(o.launch_once ? "bankbench-measure" : "verified launch");
    p.launch(nullptr);
    BB_CUDA_CALL(cudaDeviceSynchronize());
  }
  r.verify = p.verify();
  r.verify_ms = ms_since(t0);
  if (!r.verify.ok) {
    r.status = "wrong_result";
    r.reason = std::to_string(r.verify.mismatches) + " of " + std::to_string(r.verify.checked) +
               " elements wrong; first: " + r.verify.first_mismatch;
    return;
  }
  if (o.launch_once) return;
  const auto expected_ranges = static_cast<std::size_t>(o.counter_launches) * p.kernels_per_launch();
  if (counters != nullptr && expected_ranges > 0) {
    nvtx_range range("counter pass");
    t0 = clock_type::now();
    if (o.cache_control == "once") flush_l2();
    const auto launches = [&] {
      for (int i = 0; i < o.counter_launches; ++i) p.launch(nullptr);
    };
    r.ranges = o.cache_control == "all" ? counters->profile(launches, expected_ranges, [] { flush_l2(); })
                                        : counters->profile(launches, expected_ranges);
    r.counter_ms = ms_since(t0);
    spdlog::debug("counter pass: {}", counters->last_breakdown());
    if (r.ranges.size() != expected_ranges) {
      r.status = "failed";
      r.reason = "profiler returned " + std::to_string(r.ranges.size()) + " ranges for " +
                 std::to_string(o.counter_launches) + " launch(es) of " +
                 std::to_string(p.kernels_per_launch()) + " kernel(s)";
      return;
    }
  }
  if (o.samples <= 0) return; // --no-timing
  nvtx_range range("timing pass");
  t0 = clock_type::now();
  timing_pass(p, o, r);
  r.timing_ms = ms_since(t0);
}

// Peak RSS of this process so far, and device memory in use now that the buffers are freed.
void record_resources(config_result& r) {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) == 0) r.host_rss_peak_bytes = static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) r.device_used_bytes = total_bytes - free_bytes;
  else cudaGetLastError();
}

} // namespace

config_result execute(const variant_info& variant, const nlohmann::json& params, std::uint64_t seed,
                      const exec_options& options, profile::session* counters) {
  config_result r;
  nvtx_range range(options.nvtx_name);
  std::unique_ptr<problem> p;
  auto t0 = clock_type::now();
  try {
    p = variant.make(params, seed);
    r.bytes_moved = p->bytes_moved();
    r.smem_access_bytes = p->smem_access_bytes();
    r.setup_ms = ms_since(t0);
    run_passes(*p, options, counters, r);
  } catch (const unsupported_parameter& e) {
    r.status = "unsupported";
    r.reason = e.what();
  } catch (const environment_error&) {
    throw; // permission or profiler conflicts concern the whole run
  } catch (const std::bad_alloc&) {
    r.status = "failed";
    r.reason = "out of host memory";
  } catch (const error& e) {
    r.status = "failed";
    r.reason = e.what();
  }
  const bool out_of_memory = r.reason.find("cudaErrorMemoryAllocation") != std::string::npos;
  p.reset(); // device memory is released before the next configuration
  if (out_of_memory) {
    std::size_t free_bytes = 0, total_bytes = 0;
    cudaGetLastError(); // an allocation failure is not sticky; clear it
    cudaMemGetInfo(&free_bytes, &total_bytes);
    r.status = "skipped";
    r.reason = "does not fit in device memory (" + std::to_string(free_bytes >> 20) + " MiB free of " +
               std::to_string(total_bytes >> 20) + " MiB); nothing was launched";
  } else if (r.status == "failed") {
    // A sticky error (illegal address, trap, device assert) poisons the context for good.
    const cudaError_t sticky = cudaDeviceSynchronize();
    r.context_lost = sticky != cudaSuccess && cudaDeviceSynchronize() != cudaSuccess;
    if (r.context_lost && r.reason.find(cudaGetErrorName(sticky)) == std::string::npos)
      r.reason += std::string(" (") + cudaGetErrorName(sticky) + ")";
  }
  if (!r.context_lost) record_resources(r);
  return r;
}

} // namespace bb::launch
