#include "runner/profile/cupti_context.hpp"

#include <cuda_runtime_api.h>
#include <cupti_profiler_target.h>

#include "runner/common/error.hpp"
#include "runner/profile/cupti_call.hpp"

namespace bb::profile {

void ensure_initialized() {
  static bool done = false;
  if (done) return;
  CUpti_Profiler_Initialize_Params p{CUpti_Profiler_Initialize_Params_STRUCT_SIZE, nullptr};
  BB_CUPTI_CALL(cuptiProfilerInitialize(&p));
  done = true;
}

CUcontext current_context() {
  // Through the runtime's driver entry point: linking libcuda would stop the binary from
  // starting on machines with no driver.
  using get_current_fn = CUresult (*)(CUcontext*);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult status{};
  if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &status) != cudaSuccess ||
      fn == nullptr)
    throw api_error("cannot resolve cuCtxGetCurrent through the CUDA runtime");
  CUcontext ctx = nullptr;
  if (reinterpret_cast<get_current_fn>(fn)(&ctx) != CUDA_SUCCESS || ctx == nullptr)
    throw api_error("no current CUDA context to profile");
  return ctx;
}

} // namespace bb::profile
