// The two things a profiler needs of the CUDA runtime in bankbench's own process. An injected
// library (runner/inject/) defines them on the driver API instead, so it carries no runtime.
#include <string>

#include <cuda_runtime_api.h>

#include "runner/common/cuda_error.hpp"
#include "runner/common/error.hpp"
#include "runner/profile/cupti_context.hpp"

namespace bb::profile {

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

void synchronize_device(const char* what) {
  if (const cudaError_t err = cudaDeviceSynchronize(); err != cudaSuccess)
    throw cuda_error(err, std::string(what) + ": " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
}

} // namespace bb::profile
