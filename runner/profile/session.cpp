#include "runner/profile/session.hpp"

#include <algorithm>
#include <chrono>
#include <iterator>

#include <fmt/format.h>

#include <cuda.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include "runner/common/cuda_error.hpp"
#include "runner/common/error.hpp"
#include "runner/common/metrics.hpp"
#include "runner/profile/cupti_call.hpp"
#include "runner/profile/cupti_context.hpp"

namespace bb::profile {

struct session::impl {
  CUcontext ctx = nullptr;
  CUpti_Profiler_Host_Object* host = nullptr;
  CUpti_RangeProfiler_Object* range = nullptr; ///< non-null while enabled
};

session* session::s_active = nullptr;

namespace {
// Wall time of each step of a counter pass, for `run -vv`.
struct stopwatch {
  explicit stopwatch(std::string& out) : m_out(out) { m_out.clear(); }
  void lap(const char* step) {
    const auto now = std::chrono::steady_clock::now();
    m_out += fmt::format("{}{} {:.2f} ms", m_out.empty() ? "" : ", ", step,
                         std::chrono::duration<double, std::milli>(now - m_t).count());
    m_t = now;
  }
  std::string& m_out;
  std::chrono::steady_clock::time_point m_t = std::chrono::steady_clock::now();
};
} // namespace

namespace {

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

void check_supported(int device) {
  CUpti_Profiler_DeviceSupported_Params p{CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE, nullptr};
  p.cuDevice = device;
  p.api = CUPTI_PROFILER_RANGE_PROFILING;
  BB_CUPTI_CALL(cuptiProfilerDeviceSupported(&p));
  if (p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return;
  std::string why;
  if (p.architecture != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    why = "architecture older than compute capability 7.0";
  else if (p.vGpu == CUPTI_PROFILER_CONFIGURATION_DISABLED)
    why = "vGPU with profiling disabled";
  else if (p.vGpu != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    why = "vGPU";
  else if (p.sli != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    why = "SLI";
  else if (p.confidentialCompute != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    why = "confidential computing";
  else if (p.cmp != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    why = "crypto-mining processor";
  else if (p.wsl != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    why = "WSL";
  else
    why = "unknown reason";
  throw environment_error("device " + std::to_string(device) + " does not support counter profiling (" + why +
                          "); `bankbench run --no-counters` still times kernels");
}

// Which counters the device can give now: read once per process, and only for a chip CUPTI's host
// tables do not know (below). It fails while a range profiler is enabled on the context.
const std::vector<std::uint8_t>& counter_availability(CUcontext ctx) {
  static std::vector<std::uint8_t> image;
  if (!image.empty()) return image;
  CUpti_Profiler_GetCounterAvailability_Params p{CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE, nullptr};
  p.ctx = ctx;
  BB_CUPTI_CALL(cuptiProfilerGetCounterAvailability(&p));
  std::vector<std::uint8_t> buf(p.counterAvailabilityImageSize);
  p.pCounterAvailabilityImage = buf.data();
  BB_CUPTI_CALL(cuptiProfilerGetCounterAvailability(&p));
  image = std::move(buf);
  return image;
}

} // namespace

std::string chip_name(int device) {
  ensure_initialized();
  CUpti_Device_GetChipName_Params p{CUpti_Device_GetChipName_Params_STRUCT_SIZE, nullptr};
  p.deviceIndex = static_cast<std::size_t>(device);
  BB_CUPTI_CALL(cuptiDeviceGetChipName(&p));
  return p.pChipName;
}

std::unique_ptr<session> session::create(int device, const std::vector<std::string>& metrics) {
  ensure_initialized();
  return create(device, current_context(), metrics);
}

std::unique_ptr<session> session::create(int device, CUcontext ctx, const std::vector<std::string>& metrics) {
  std::unique_ptr<session> s(new session());
  s->m_impl = std::make_unique<impl>();
  ensure_initialized();
  check_supported(device);
  stopwatch watch(s->m_last_breakdown); // until the first profile(): where the set-up went
  s->m_chip = chip_name(device);
  watch.lap("chip");
  // The counter-availability image is needed only for a chip newer than this CUPTI ("required for
  // future chip support"): for one its host tables know, reading it took 115-150 ms on an H100,
  // most of which the first Start pays anyway (the driver's own profiler set-up); 60-75 ms per
  // process are saved (docs/measurements/2026-11-27-h100-attach-flush.md). Missing permission
  // and counters held by another tool show at that Start instead (the warm-up, before any
  // configuration), with the same error codes.
  CUpti_Profiler_Host_Initialize_Params hi{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE, nullptr};
  hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  hi.pChipName = s->m_chip.c_str();
  hi.pCounterAvailabilityImage = nullptr;
  if (cuptiProfilerHostInitialize(&hi) != CUPTI_SUCCESS) {
    s->m_availability = counter_availability(ctx);
    watch.lap("availability");
    hi = {CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE, nullptr};
    hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hi.pChipName = s->m_chip.c_str();
    hi.pCounterAvailabilityImage = s->m_availability.data();
    BB_CUPTI_CALL(cuptiProfilerHostInitialize(&hi));
  }
  s->m_impl->host = hi.pHostObject;
  watch.lap("host init");

  std::string unknown;
  for (const auto& name : metrics) {
    CUpti_Profiler_Host_GetMetricProperties_Params mp{CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE,
                                                      nullptr};
    mp.pHostObject = s->m_impl->host;
    mp.pMetricName = name.c_str();
    if (cuptiProfilerHostGetMetricProperties(&mp) != CUPTI_SUCCESS) {
      // A named set's counter this chip lacks (metrics::is_chip_optional) is left out: its
      // derived values stay absent rather than reading 0.
      if (metrics::is_chip_optional(name))
        s->m_absent.push_back(name);
      else
        unknown += (unknown.empty() ? "'" : ", '") + name + "'";
      continue;
    }
    s->m_metrics.push_back({name, mp.pDimUnit ? mp.pDimUnit : "", mp.pDescription ? mp.pDescription : ""});
    s->m_names.push_back(name);
  }
  if (!unknown.empty())
    throw usage_error("metric(s) " + unknown + " not known on chip " + s->m_chip +
                      "; list a chip's metrics with `ncu --query-metrics --chip " + s->m_chip + "`");

  for (const auto& n : s->m_names) s->m_name_ptrs.push_back(n.c_str());
  watch.lap("metrics");

  CUpti_Profiler_Host_ConfigAddMetrics_Params add{CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE, nullptr};
  add.pHostObject = s->m_impl->host;
  add.ppMetricNames = s->m_name_ptrs.data();
  add.numMetrics = s->m_name_ptrs.size();
  BB_CUPTI_CALL(cuptiProfilerHostConfigAddMetrics(&add));
  CUpti_Profiler_Host_GetConfigImageSize_Params size{CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE,
                                                     nullptr};
  size.pHostObject = s->m_impl->host;
  BB_CUPTI_CALL(cuptiProfilerHostGetConfigImageSize(&size));
  s->m_config.resize(size.configImageSize);
  CUpti_Profiler_Host_GetConfigImage_Params img{CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE, nullptr};
  img.pHostObject = s->m_impl->host;
  img.configImageSize = s->m_config.size();
  img.pConfigImage = s->m_config.data();
  BB_CUPTI_CALL(cuptiProfilerHostGetConfigImage(&img));
  CUpti_Profiler_Host_GetNumOfPasses_Params np{CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE, nullptr};
  np.configImageSize = s->m_config.size();
  np.pConfigImage = s->m_config.data();
  BB_CUPTI_CALL(cuptiProfilerHostGetNumOfPasses(&np));
  s->m_passes = np.numOfPasses;
  watch.lap("config image");

  s->m_impl->ctx = ctx;
  return s;
}

// One range profiler may be enabled on a context at a time: the session about to profile takes
// it over from whichever session had it.
void session::enable() {
  if (m_impl->range != nullptr) return;
  if (s_active != nullptr && s_active != this) s_active->disable();
  CUpti_RangeProfiler_Enable_Params en{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE, nullptr};
  en.ctx = m_impl->ctx;
  BB_CUPTI_CALL(cuptiRangeProfilerEnable(&en));
  m_impl->range = en.pRangeProfilerObject;
  s_active = this;
  m_counter_data.clear(); // sized against the new range profiler object
}

void session::disable() noexcept {
  if (m_impl == nullptr || m_impl->range == nullptr) return;
  CUpti_RangeProfiler_Disable_Params p{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE, nullptr};
  p.pRangeProfilerObject = m_impl->range;
  cuptiRangeProfilerDisable(&p);
  m_impl->range = nullptr;
  if (s_active == this) s_active = nullptr;
}

void session::reset_counter_data() {
  if (m_counter_data.empty()) {
    CUpti_RangeProfiler_GetCounterDataSize_Params sz{CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE,
                                                     nullptr};
    sz.pRangeProfilerObject = m_impl->range;
    sz.pMetricNames = m_name_ptrs.data();
    sz.numMetrics = m_name_ptrs.size();
    sz.maxNumOfRanges = m_max_ranges;
    sz.maxNumRangeTreeNodes = static_cast<std::uint32_t>(m_max_ranges);
    BB_CUPTI_CALL(cuptiRangeProfilerGetCounterDataSize(&sz));
    m_counter_data.resize(sz.counterDataSize);
  }
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params init{
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE, nullptr};
  init.pRangeProfilerObject = m_impl->range;
  init.counterDataSize = m_counter_data.size();
  init.pCounterData = m_counter_data.data();
  BB_CUPTI_CALL(cuptiRangeProfilerCounterDataImageInitialize(&init));
}

std::vector<range_values> session::profile(const std::function<void()>& launch, std::size_t max_ranges) {
  return collect(launch, max_ranges, false);
}

std::vector<std::vector<range_values>> session::profile_group(
    const std::vector<group_item>& items, const std::function<void(std::size_t item)>& before_each) {
  std::size_t total = 0;
  for (const auto& item : items) total += item.launches;
  // What the passes' enqueueing spent in each call, summed over the passes (for `-v`).
  double before_ms = 0, push_ms = 0, launch_ms = 0, pop_ms = 0;
  auto t = std::chrono::steady_clock::now();
  const auto lap = [&t](double& into) {
    const auto now = std::chrono::steady_clock::now();
    into += std::chrono::duration<double, std::milli>(now - t).count();
    t = now;
  };
  auto flat = collect(
      [&] {
        for (std::size_t i = 0; i < items.size(); ++i) {
          t = std::chrono::steady_clock::now();
          before_each(i); // outside every range: not counted
          lap(before_ms);
          for (std::size_t k = 0; k < items[i].launches; ++k) {
            const std::string name = std::to_string(i) + "." + std::to_string(k);
            CUpti_RangeProfiler_PushRange_Params push{CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE, nullptr};
            push.pRangeProfilerObject = m_impl->range;
            push.pRangeName = name.c_str();
            BB_CUPTI_CALL(cuptiRangeProfilerPushRange(&push));
            lap(push_ms);
            items[i].launch();
            lap(launch_ms);
            CUpti_RangeProfiler_PopRange_Params pop{CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE, nullptr};
            pop.pRangeProfilerObject = m_impl->range;
            BB_CUPTI_CALL(cuptiRangeProfilerPopRange(&pop));
            lap(pop_ms);
          }
        }
      },
      total, true);
  m_last_breakdown += fmt::format("; enqueued: before each {:.2f} ms, push {:.2f} ms, launch {:.2f} ms, pop {:.2f} ms",
                                  before_ms, push_ms, launch_ms, pop_ms);
  if (flat.size() != total)
    throw api_error("profiler returned " + std::to_string(flat.size()) + " ranges for a group of " +
                    std::to_string(items.size()) + " configurations (" + std::to_string(total) + " expected)");
  std::vector<std::vector<range_values>> out;
  auto next = flat.begin();
  for (const auto& item : items) {
    const auto n = static_cast<std::ptrdiff_t>(item.launches);
    out.emplace_back(std::make_move_iterator(next), std::make_move_iterator(next + n));
    next += n;
  }
  return out;
}

void session::arm(std::size_t max_ranges, bool grouped) {
  // One capacity for the session's life: a range profiler keeps the capacity of its first
  // configuration (on an H200, an image for more ranges set up later returned 2 of 24; on an H100,
  // an image for fewer ranges than the first left the last Stop's cost as it was), and a new
  // range profiler costs 10-17 ms to enable plus about 120 ms in its first pass. Its last pass
  // costs about 0.12 ms per range of capacity, whatever the group holds, and CUPTI holds about
  // 1 MiB of host and of device memory per range, hence a small capacity (launch::group closes a
  // group at it; docs/measurements/2026-11-27-h100x4-scale.md).
  // It keeps its first range mode too (PushRange failed with CUPTI_ERROR_INVALID_PARAMETER after
  // an auto-range session): a run uses one mode, and warm_up_profiler() sets it up front.
  if (max_ranges > m_max_ranges || (m_impl->range != nullptr && m_grouped != grouped)) {
    disable();
    m_max_ranges = std::max(max_ranges, k_capacity);
  }
  enable();
  m_grouped = grouped;
  reset_counter_data();

  CUpti_RangeProfiler_SetConfig_Params cfg{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE, nullptr};
  cfg.pRangeProfilerObject = m_impl->range;
  cfg.configSize = m_config.size();
  cfg.pConfig = m_config.data();
  cfg.counterDataImageSize = m_counter_data.size();
  cfg.pCounterDataImage = m_counter_data.data();
  cfg.range = grouped ? CUPTI_UserRange : CUPTI_AutoRange;
  // One pass needs no replay: user replay then spares the launch kernel replay's machinery.
  cfg.replayMode = grouped || (m_single_pass_user_replay && m_passes == 1) ? CUPTI_UserReplay : CUPTI_KernelReplay;
  cfg.maxRangesPerPass = m_max_ranges;
  cfg.numNestingLevels = 1;
  cfg.minNestingLevel = 1;
  cfg.passIndex = 0;
  cfg.targetNestingLevel = 1;
  BB_CUPTI_CALL(cuptiRangeProfilerSetConfig(&cfg));
}

void session::start() {
  CUpti_RangeProfiler_Start_Params start{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE, nullptr};
  start.pRangeProfilerObject = m_impl->range;
  BB_CUPTI_CALL(cuptiRangeProfilerStart(&start));
}

bool session::stop(bool checked) {
  CUpti_RangeProfiler_Stop_Params stop{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE, nullptr};
  stop.pRangeProfilerObject = m_impl->range;
  if (!checked) {
    cuptiRangeProfilerStop(&stop); // leave the profiler usable for the next configuration
    return false;
  }
  BB_CUPTI_CALL(cuptiRangeProfilerStop(&stop));
  return stop.isAllPassSubmitted != 0;
}

std::vector<range_values> session::read_ranges() {
  const auto t0 = std::chrono::steady_clock::now();
  CUpti_RangeProfiler_DecodeData_Params dec{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE, nullptr};
  dec.pRangeProfilerObject = m_impl->range;
  BB_CUPTI_CALL(cuptiRangeProfilerDecodeData(&dec));
  m_decode_ms = ms_since(t0);
  if (dec.numOfRangeDropped != 0)
    throw api_error(std::to_string(dec.numOfRangeDropped) + " profiled range(s) were dropped");

  CUpti_RangeProfiler_GetCounterDataInfo_Params info{CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE,
                                                     nullptr};
  info.pCounterDataImage = m_counter_data.data();
  info.counterDataImageSize = m_counter_data.size();
  BB_CUPTI_CALL(cuptiRangeProfilerGetCounterDataInfo(&info));

  std::vector<range_values> out;
  std::vector<double> values(m_name_ptrs.size());
  for (std::size_t r = 0; r < info.numTotalRanges; ++r) {
    CUpti_Profiler_Host_EvaluateToGpuValues_Params ev{CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE,
                                                      nullptr};
    ev.pHostObject = m_impl->host;
    ev.pCounterDataImage = m_counter_data.data();
    ev.counterDataImageSize = m_counter_data.size();
    ev.rangeIndex = r;
    ev.ppMetricNames = m_name_ptrs.data();
    ev.numMetrics = m_name_ptrs.size();
    ev.pMetricValues = values.data();
    BB_CUPTI_CALL(cuptiProfilerHostEvaluateToGpuValues(&ev));
    range_values rv;
    for (std::size_t i = 0; i < m_names.size(); ++i) rv[m_names[i]] = values[i];
    out.push_back(std::move(rv));
  }
  return out;
}

std::vector<range_values> session::collect(const std::function<void()>& run_pass, std::size_t max_ranges,
                                           bool grouped) {
  stopwatch watch(m_last_breakdown);
  arm(max_ranges, grouped);
  watch.lap("setup");

  // Kernel replay: one Start/Stop, CUPTI replays each kernel. User replay: one Start/Stop per
  // pass, until CUPTI says every pass was submitted.
  const std::size_t attempts = grouped ? m_passes + 1 : 1;
  bool all_submitted = false;
  for (std::size_t attempt = 0; attempt < attempts && !all_submitted; ++attempt) {
    start();
    try {
      run_pass();
      watch.lap(grouped ? "start+enqueue" : "start+launch");
      synchronize_device("kernel failed under the profiler");
    } catch (...) {
      stop(false);
      throw;
    }
    watch.lap(grouped ? "wait" : "wait+replay");
    all_submitted = stop(true);
    watch.lap("stop");
  }
  if (!all_submitted)
    throw api_error(std::string("CUPTI ") + (grouped ? "user" : "kernel") + " replay did not submit every pass (" +
                    std::to_string(m_passes) + " needed)");
  auto out = read_ranges();
  watch.lap("decode+evaluate");
  m_last_breakdown += fmt::format(" (decode {:.2f} ms)", m_decode_ms);
  return out;
}

void session::begin_launch() {
  // One launch is one range: a small image keeps CUPTI's memory (about 1 MiB of host and device
  // memory per range) out of the program's way.
  if (m_max_ranges == 0) m_max_ranges = 2;
  const bool fresh = m_impl->range == nullptr;
  stopwatch watch(m_last_breakdown);
  arm(1, false);
  watch.lap(fresh ? "enable+config" : "config"); // a process's first: the range profiler enabled on the context
  start();
  watch.lap("start"); // a process's first: the driver's profiler set-up, 0.19 to 0.26 s on an H100
}

std::vector<range_values> session::end_launch() {
  m_launch_watch = std::chrono::steady_clock::now();
  try {
    synchronize_device("kernel failed under the profiler");
  } catch (...) {
    stop(false);
    throw;
  }
  m_last_breakdown += fmt::format(", launch+replay {:.2f} ms", ms_since(m_launch_watch));
  m_launch_watch = std::chrono::steady_clock::now();
  if (!stop(true))
    throw api_error("CUPTI kernel replay did not submit every pass (" + std::to_string(m_passes) + " needed)");
  auto out = read_ranges();
  m_last_breakdown += fmt::format(", stop+decode+evaluate {:.2f} ms", ms_since(m_launch_watch));
  return out;
}

session::~session() {
  if (m_impl == nullptr) return;
  disable();
  if (m_impl->host != nullptr) {
    CUpti_Profiler_Host_Deinitialize_Params p{CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE, nullptr};
    p.pHostObject = m_impl->host;
    cuptiProfilerHostDeinitialize(&p);
  }
}

} // namespace bb::profile
