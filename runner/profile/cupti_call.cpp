#include "runner/profile/cupti_call.hpp"

#include <string>

#include <cupti.h>

#include "runner/common/error.hpp"

namespace bb::profile {

void throw_cupti_error(CUptiResult result, const char* call, const char* file, int line) {
  const char* text = "unknown CUPTI error";
  cuptiGetResultString(result, &text);
  switch (result) {
  case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
  case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
    throw environment_error("access to GPU performance counters is restricted to administrators (ERR_NVGPUCTRPERM). "
                            "Fix: run bankbench as root, or load the driver with NVreg_RestrictProfilingToAdminUsers=0 "
                            "(see https://developer.nvidia.com/ERR_NVGPUCTRPERM); `bankbench run --no-counters` times "
                            "kernels without counters");
  case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    throw environment_error(
        "another profiler already holds CUPTI in this process (Nsight Compute or Nsight Systems "
        "attached?). Fix: run bankbench on its own, or pass --no-counters when running it under ncu");
  case CUPTI_ERROR_HARDWARE_BUSY:
    throw environment_error("the GPU's performance counters are in use by another tool (a DCGM profiling module or "
                            "another profiler). Fix: stop it (e.g. `dcgmi profile --pause`) and run again");
  case CUPTI_ERROR_NOT_SUPPORTED:
  case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
  case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
  case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
  case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    throw environment_error(std::string("this GPU or its configuration does not support counter "
                                        "profiling (") +
                            text + "); `bankbench run --no-counters` still times kernels");
  default: throw api_error(std::string(call) + " failed: " + text + " at " + file + ":" + std::to_string(line));
  }
}

} // namespace bb::profile
