// The profiler's two runtime needs (runner/profile/cupti_context.hpp) on the driver API: the
// injected library lives in a program that brings its own CUDA runtime, or none.
#include <string>

#include <cuda.h>

#include "runner/common/error.hpp"
#include "runner/profile/cupti_context.hpp"

namespace bb::profile {

CUcontext current_context() {
  CUcontext ctx = nullptr;
  if (cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || ctx == nullptr) throw api_error("no current CUDA context to profile");
  return ctx;
}

void synchronize_device(const char* what) {
  if (const CUresult r = cuCtxSynchronize(); r != CUDA_SUCCESS) {
    const char* name = "unknown error";
    cuGetErrorName(r, &name);
    throw api_error(std::string(what) + ": " + name);
  }
}

} // namespace bb::profile
