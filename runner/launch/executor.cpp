#include "runner/launch/executor.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <memory>

#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>
#include <spdlog/spdlog.h>

#include "runner/common/error.hpp"
#include "runner/launch/cache_flush.hpp"
#include "runner/launch/cuda_call.hpp"
#include "runner/launch/device_memory.hpp"
#include "runner/launch/nvml.hpp"
#include "runner/registry/compiled_problem.hpp"

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

// CUDA events resolve about 0.5 us, 2.5 % of a 20 us kernel, and a pair of them costs 0.5 to 1.5 us
// beyond the launches between them, so shorter kernels are timed as a batch of back-to-back launches
// per sample (as nvbench does), lasting exec_options::min_sample_ns. With 50 us, a kernel of about
// 25 us got 2 launches per sample in one run and 3 in the next, as its one probe launch fell, and
// its median moved by the bracket's share: in six sets of three suite runs on an H200, every
// configuration whose medians moved by more than 2 % was such a kernel; with 200 us, none moved by
// more than 1.13 % in two sets (bench/probes/batch-probe.sh).
constexpr int k_max_launches_per_sample = 64;

// Nanoseconds per launch of `launches` back-to-back launches, bracketed by events.
double probe_ns(problem& p, int launches) {
  event_pair probe;
  BB_CUDA_CALL(cudaEventRecord(probe.start, nullptr));
  for (int i = 0; i < launches; ++i) p.launch(nullptr);
  BB_CUDA_CALL(cudaEventRecord(probe.stop, nullptr));
  BB_CUDA_CALL(cudaEventSynchronize(probe.stop));
  float ms = 0;
  BB_CUDA_CALL(cudaEventElapsedTime(&ms, probe.start, probe.stop));
  return std::max(1.0, static_cast<double>(ms) * 1e6 / launches);
}

int launches_for(double min_sample_ns, double ns_per_launch) {
  return static_cast<int>(std::clamp(std::ceil(min_sample_ns / ns_per_launch), 1.0, double{k_max_launches_per_sample}));
}

// Launches per sample, after the warm-up: from one timed launch, then from a batch of that many.
// One launch alone runs slower than in a batch (on an H200 single launches of kernels that take
// 4 to 5 us in a batch timed 6 to 20 us), which left their samples as short as 47 us; the batch
// measures them as the samples will.
int launches_per_sample(problem& p, double min_sample_ns) {
  const int first = launches_for(min_sample_ns, probe_ns(p, 1));
  return first == 1 ? 1 : launches_for(min_sample_ns, probe_ns(p, first));
}

// Each sample is bracketed by its own events, so one slow batch shows as one slow sample; a
// sample's time is per launch. Every sample is enqueued first; the host then waits for each in
// turn and reads the clock and the throttle reasons as it sees the sample finish, so marking
// samples adds no gap between launches. Appends `samples` samples of instance `placement`; the
// first instance timed sets the launches per sample for all.
void timing_pass(problem& p, const exec_options& o, int samples, int placement, config_result& r) {
  std::vector<std::unique_ptr<event_pair>> events;
  for (int i = 0; i < samples; ++i) events.push_back(std::make_unique<event_pair>());
  for (int i = 0; i < o.warmup; ++i) p.launch(nullptr);
  if (r.samples_ns.empty()) r.launches_per_sample = launches_per_sample(p, o.min_sample_ns);
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
  r.sm_clock_mhz = r.sample_sm_clock_mhz.empty()
                       ? smi.sm_clock_mhz()
                       : *std::max_element(r.sample_sm_clock_mhz.begin(), r.sample_sm_clock_mhz.end());
  for (auto& e : events) {
    float ms = 0;
    BB_CUDA_CALL(cudaEventElapsedTime(&ms, e->start, e->stop));
    r.samples_ns.push_back(static_cast<double>(ms) * 1e6 / r.launches_per_sample);
    r.sample_placement.push_back(placement);
  }
}

// Poisons the output, launches once and checks the result.
void verify_pass(problem& p, const exec_options& o, config_result& r) {
  const auto t0 = clock_type::now();
  p.poison_output();
  {
    nvtx_range measured(o.passes.launch_once ? "bankbench-measure" : "verified launch");
    p.launch(nullptr);
    BB_CUDA_CALL(cudaDeviceSynchronize());
  }
  r.verify = p.verify();
  r.verify_ms = ms_since(t0);
  spdlog::debug("set-up {:.2f} ms, launch and verification {:.2f} ms", r.setup_ms, r.verify_ms);
  if (!r.verify.ok) {
    r.status = config_status::wrong_result;
    r.reason = std::to_string(r.verify.mismatches) + " of " + std::to_string(r.verify.checked) +
               " elements wrong; first: " + r.verify.first_mismatch;
  }
}

// Records a failure of the configuration itself; rethrows what concerns the whole run.
template <class Body> void recorded(config_result& r, Body body) {
  try {
    body();
  } catch (const unsupported_parameter& e) {
    r.status = config_status::unsupported;
    r.reason = e.what();
  } catch (const environment_error&) {
    throw; // permission or profiler conflicts concern the whole run
  } catch (const std::bad_alloc&) {
    r.status = config_status::failed;
    r.reason = "out of host memory";
  } catch (const cuda_error& e) {
    r.status = config_status::failed;
    r.reason = e.what();
    r.cuda_error = e.code();
  } catch (const error& e) {
    r.status = config_status::failed;
    r.reason = e.what();
  }
}

// After a failure: an allocation failure becomes skipped (nothing ran); a sticky error (illegal
// address, trap, device assert) poisons the context for good.
void classify_failure(config_result& r) {
  if (r.cuda_error == cudaErrorMemoryAllocation) {
    std::size_t free_bytes = 0, total_bytes = 0;
    cudaGetLastError(); // an allocation failure is not sticky; clear it
    cudaMemGetInfo(&free_bytes, &total_bytes);
    r.status = config_status::skipped;
    r.reason = "does not fit in device memory (" + std::to_string(free_bytes >> 20) + " MiB free of " +
               std::to_string(total_bytes >> 20) + " MiB); nothing was launched";
  } else if (r.status == config_status::failed) {
    const cudaError_t sticky = cudaDeviceSynchronize();
    r.context_lost = sticky != cudaSuccess && cudaDeviceSynchronize() != cudaSuccess;
    if (r.context_lost && r.reason.find(cudaGetErrorName(sticky)) == std::string::npos)
      r.reason += std::string(" (") + cudaGetErrorName(sticky) + ")";
  }
}

// Peak RSS of this process so far, and device memory now that the buffers are given back: in use
// (what the driver counts as used, less what the buffer pool keeps mapped for the next
// configuration), and what the pool keeps mapped.
void record_resources(config_result& r) {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) == 0) r.host_rss_peak_bytes = static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
  device_memory_use m;
  if (read_device_memory(m)) {
    r.device_used_bytes = m.in_use();
    r.pool_reserved_bytes = m.pool_reserved;
  }
}

} // namespace

cache_control cache_control_named(const std::string& name) {
  if (name == "all") return cache_control::all;
  if (name == "once") return cache_control::once;
  if (name == "none") return cache_control::none;
  throw usage_error("unknown cache control '" + name + "': use all, once or none");
}

const char* name_of(cache_control c) {
  switch (c) {
  case cache_control::all: return "all";
  case cache_control::once: return "once";
  case cache_control::none: return "none";
  }
  return "all";
}

struct group::member {
  std::size_t tag = 0;
  std::string nvtx_name;
  const variant_info* variant = nullptr; ///< with params and seed: further instances for timing
  nlohmann::json params;
  std::uint64_t seed = 0;
  std::unique_ptr<problem> p;
  config_result r;
  [[nodiscard]] bool verified() const { return p != nullptr && r.status == config_status::ok; }
};

group::group(const exec_options& options, profile::session* counters)
    : m_options(options), m_counters(options.passes.counters ? counters : nullptr) {}

group::~group() = default;

bool group::empty() const { return m_members.empty(); }

bool group::full() const {
  if (m_members.empty()) return false;
  const bool shared_session = m_counters != nullptr && m_options.cache_control == cache_control::all;
  return !shared_session || m_context_lost || m_ranges >= k_group_ranges || m_device_bytes >= k_group_bytes;
}

void group::add(std::size_t tag, const variant_info& variant, const nlohmann::json& params, std::uint64_t seed,
                const std::string& nvtx_name) {
  member m;
  m.tag = tag;
  m.nvtx_name = nvtx_name;
  m.variant = &variant;
  m.params = params;
  m.seed = seed;
  nvtx_range range(nvtx_name);
  const auto t0 = clock_type::now();
  recorded(m.r, [&] {
    m.p = variant.make(params, seed);
    if (const auto* c = dynamic_cast<const compiled_problem*>(m.p.get())) {
      m.r.compile_key = c->compiled().key;
      m.r.compile_ms = c->compiled().ms;
      m.r.compiler = c->compiled().compiler;
      m.r.compile_options = c->compiled().options;
      m.r.unverified = c->unverified();
    }
    m.r.bytes_moved = m.p->bytes_moved();
    m.r.smem_access_bytes = m.p->smem_access_bytes();
    m.r.setup_ms = ms_since(t0);
    verify_pass(*m.p, m_options, m.r);
  });
  if (m.r.status != config_status::ok) {
    m.p.reset(); // device memory is released at once; nothing more runs for this configuration
    classify_failure(m.r);
  }
  if (m.r.context_lost) {
    // The members before it cannot be profiled on this context: their results are dropped (not
    // stored), so a fresh worker runs them again.
    m_members.clear();
    m_context_lost = true;
  }
  if (m.p != nullptr) {
    m_device_bytes += m.p->device_bytes();
    if (m.p->kernels_per_launch() > 0) m_ranges += static_cast<std::size_t>(m_options.counter_launches);
  }
  m_members.push_back(std::move(m));
}

void group::counter_passes() {
  if (m_counters == nullptr) return;
  struct profiled {
    member* m;
    std::size_t ranges;
  };
  // With --cache-control all, one user range per launch (every kernel it enqueues); otherwise one
  // auto range per kernel.
  const bool grouped = m_options.cache_control == cache_control::all;
  std::vector<profiled> todo;
  for (auto& m : m_members) {
    if (!m.verified()) continue;
    const auto kernels = static_cast<std::size_t>(m.p->kernels_per_launch());
    const auto launches = static_cast<std::size_t>(m_options.counter_launches);
    if (kernels > 0) todo.push_back({&m, grouped ? launches : launches * kernels});
  }
  if (todo.empty()) return;
  const auto t0 = clock_type::now();
  nvtx_range range("counter pass");
  config_result failure;
  double flush_ms = 0;
  std::vector<std::vector<profile::range_values>> ranges(todo.size());
  recorded(failure, [&] {
    if (grouped) {
      std::vector<profile::session::group_item> items;
      for (const auto& t : todo) {
        problem* p = t.m->p.get();
        items.push_back({[p] { p->launch(nullptr); }, t.ranges});
      }
      // Before each member's range, in every pass: an unprofiled launch of the same
      // configuration, then the L2 flush. Nsight Compute restores the kernel's memory and then
      // flushes before each pass; without the launch, a member's range followed the other members'
      // kernels, and its conflicts read 0.8 % above ncu's on average (H200; 0.1 % with it, see
      // docs/ncu-parity.md).
      ranges = m_counters->profile_group(items, [&](std::size_t i) {
        items[i].launch();
        const auto f0 = clock_type::now();
        flush_l2();
        flush_ms += ms_since(f0);
      });
    } else { // a group of one: CUPTI's kernel replay restores memory between passes
      problem& p = *todo.front().m->p;
      if (m_options.cache_control == cache_control::once) flush_l2();
      ranges[0] = m_counters->profile(
          [&] {
            for (int i = 0; i < m_options.counter_launches; ++i) p.launch(nullptr);
          },
          todo.front().ranges);
    }
  });
  const double per_member = ms_since(t0) / static_cast<double>(todo.size());
  spdlog::debug("counter passes of {} configuration(s): {}; flush {:.2f} ms", todo.size(), m_counters->last_breakdown(),
                flush_ms);
  if (failure.status != config_status::ok) classify_failure(failure); // every member shares the session's failure
  for (std::size_t i = 0; i < todo.size(); ++i) {
    config_result& r = todo[i].m->r;
    r.counter_ms = per_member;
    if (failure.status != config_status::ok) {
      r.status = failure.status;
      r.reason = failure.reason;
      r.cuda_error = failure.cuda_error;
    } else if (ranges[i].size() != todo[i].ranges) {
      r.status = config_status::failed;
      r.reason = "profiler returned " + std::to_string(ranges[i].size()) + " ranges for " +
                 std::to_string(m_options.counter_launches) + " launch(es) of " +
                 std::to_string(todo[i].m->p->kernels_per_launch()) + " kernel(s)";
    } else {
      r.ranges = std::move(ranges[i]);
    }
  }
  if (failure.context_lost) {
    m_context_lost = true;
    for (auto& t : todo) t.m->r.context_lost = true;
  }
}

// Where a configuration's buffers land in device memory can set its speed for as long as they
// live: on an H200 the convolution at n = 1024 walking columns ran 20.5 us with some allocations
// and 21.5 to 21.8 us with others, in every one of 200 samples, within one process
// (docs/measurements/2026-11-21-h200-counters-alone-and-placements.md). So the samples are split
// over m_options.placements instances, each set up while the ones before it are held (the
// verified one first), and the fastest instance's median is reported. An instance the device has no memory for ends the split early.
void group::time_member(member& m) {
  const int samples = m_options.samples;
  const int placements = std::clamp(m_options.placements, 1, std::max(samples, 1));
  std::vector<std::unique_ptr<problem>> held;
  problem* p = m.p.get();
  int done = 0;
  for (int j = 0; j < placements; ++j) {
    if (j > 0) {
      try {
        held.push_back(m.variant->make(m.params, m.seed));
        p = held.back().get();
      } catch (const cuda_error& e) {
        if (e.code() != cudaErrorMemoryAllocation) throw;
        (void)cudaGetLastError();
        spdlog::debug("timing over {} of {} placements: no device memory for another instance", j, placements);
        timing_pass(*p, m_options, samples - done, j - 1, m.r); // the rest on the last instance
        return;
      }
    }
    const int upto = (j + 1) * samples / placements; // an even split, in integers
    timing_pass(*p, m_options, upto - done, j, m.r);
    done = upto;
  }
}

std::vector<group::finished> group::finish(const std::function<void(std::size_t tag)>& before_timing) {
  if (!m_context_lost) counter_passes();
  for (auto& m : m_members) {
    if (m_context_lost || !m.verified() || !m_options.passes.timing) continue;
    if (before_timing) before_timing(m.tag);
    nvtx_range name(m.nvtx_name);
    recorded(m.r, [&] {
      nvtx_range range("timing pass");
      const auto t0 = clock_type::now();
      time_member(m);
      m.r.timing_ms = ms_since(t0);
    });
    if (m.r.status != config_status::ok) classify_failure(m.r);
    if (m.r.context_lost) m_context_lost = true;
  }
  std::vector<finished> out;
  for (auto& m : m_members) {
    m.p.reset(); // device memory is released before the next group
    out.push_back({m.tag, std::move(m.r)});
  }
  m_members.clear();
  m_device_bytes = 0;
  m_ranges = 0;
  if (!m_context_lost)
    for (auto& f : out) record_resources(f.result);
  m_context_lost = false;
  return out;
}

config_result execute(const variant_info& variant, const nlohmann::json& params, std::uint64_t seed,
                      const exec_options& options, profile::session* counters) {
  group g(options, counters);
  g.add(0, variant, params, seed, options.nvtx_name);
  auto results = g.finish();
  return std::move(results.front().result);
}

} // namespace bb::launch
