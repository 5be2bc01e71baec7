#include "runner/inject/early_setup.hpp"

#include <map>
#include <mutex>
#include <string>

#include "runner/common/error.hpp"

namespace bb::inject {

namespace {

// PTX rather than a fat binary, as for the L2 flush: the library is loaded before the program's
// runtime and carries no device code of its own.
constexpr const char* k_empty_ptx = R"(.version 7.0
.target sm_70
.address_size 64
.visible .entry bb_empty()
{
  ret;
}
)";

void setup_check(CUresult r, const char* call) {
  if (r == CUDA_SUCCESS) return;
  const char* name = "unknown error";
  cuGetErrorName(r, &name);
  throw api_error(std::string("the profiler's early set-up failed in ") + call + ": " + name +
                  "; `bankbench attach --profiler-setup launch` sets it up at the first profiled launch instead");
}

} // namespace

void run_empty_kernel(CUstream stream) {
  static std::mutex mutex;
  static std::map<CUcontext, CUfunction> kernels; // one module per context, kept for the process
  CUcontext ctx = nullptr;
  setup_check(cuCtxGetCurrent(&ctx), "cuCtxGetCurrent");
  CUfunction kernel = nullptr;
  {
    const std::lock_guard lock(mutex);
    auto& k = kernels[ctx];
    if (k == nullptr) {
      CUmodule module = nullptr;
      setup_check(cuModuleLoadData(&module, k_empty_ptx), "cuModuleLoadData");
      setup_check(cuModuleGetFunction(&k, module, "bb_empty"), "cuModuleGetFunction");
    }
    kernel = k;
  }
  setup_check(cuLaunchKernel(kernel, 1, 1, 1, 32, 1, 1, 0, stream, nullptr, nullptr), "cuLaunchKernel");
  setup_check(cuStreamSynchronize(stream), "cuStreamSynchronize");
}

} // namespace bb::inject
