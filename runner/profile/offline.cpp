#include "runner/profile/offline.hpp"

#include <cstdint>

#include <cupti_profiler_host.h>

#include "runner/common/error.hpp"
#include "runner/profile/cupti_call.hpp"

namespace bb::profile {

namespace {

/// Deinitialises the host object however the check ends.
struct host_object {
  CUpti_Profiler_Host_Object* p = nullptr;
  ~host_object() {
    if (!p) return;
    CUpti_Profiler_Host_Deinitialize_Params d{CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE, nullptr};
    d.pHostObject = p;
    cuptiProfilerHostDeinitialize(&d);
  }
};

} // namespace

offline_check check_offline(const std::string& chip, const std::vector<std::string>& metrics) {
  // No counter-availability image: that needs a device; names and passes do not.
  CUpti_Profiler_Host_Initialize_Params hi{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE, nullptr};
  hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  hi.pChipName = chip.c_str();
  if (const CUptiResult r = cuptiProfilerHostInitialize(&hi); r != CUPTI_SUCCESS) {
    const char* text = nullptr;
    cuptiGetResultString(r, &text);
    throw environment_error("the CUPTI host API could not start for chip " + chip + " (" +
                            (text ? text : "unknown error") +
                            "); is libnvperf_host.so on the loader path (LD_LIBRARY_PATH)?");
  }
  host_object host{hi.pHostObject};
  offline_check out;
  for (const auto& name : metrics) {
    CUpti_Profiler_Host_GetMetricProperties_Params mp{CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE,
                                                      nullptr};
    mp.pHostObject = host.p;
    mp.pMetricName = name.c_str();
    (cuptiProfilerHostGetMetricProperties(&mp) == CUPTI_SUCCESS ? out.known : out.unknown).push_back(name);
  }
  if (out.known.empty()) return out;
  std::vector<const char*> ptrs;
  for (const auto& n : out.known) ptrs.push_back(n.c_str());
  CUpti_Profiler_Host_ConfigAddMetrics_Params add{CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE, nullptr};
  add.pHostObject = host.p;
  add.ppMetricNames = ptrs.data();
  add.numMetrics = ptrs.size();
  BB_CUPTI_CALL(cuptiProfilerHostConfigAddMetrics(&add));
  CUpti_Profiler_Host_GetConfigImageSize_Params size{CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE,
                                                     nullptr};
  size.pHostObject = host.p;
  BB_CUPTI_CALL(cuptiProfilerHostGetConfigImageSize(&size));
  std::vector<std::uint8_t> image(size.configImageSize);
  CUpti_Profiler_Host_GetConfigImage_Params img{CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE, nullptr};
  img.pHostObject = host.p;
  img.configImageSize = image.size();
  img.pConfigImage = image.data();
  BB_CUPTI_CALL(cuptiProfilerHostGetConfigImage(&img));
  CUpti_Profiler_Host_GetNumOfPasses_Params np{CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE, nullptr};
  np.configImageSize = image.size();
  np.pConfigImage = image.data();
  BB_CUPTI_CALL(cuptiProfilerHostGetNumOfPasses(&np));
  out.passes = np.numOfPasses;
  return out;
}

} // namespace bb::profile
