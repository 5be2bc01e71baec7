#pragma once
/// What every CUPTI user of a process shares: the profiler's one-time initialisation and the
/// current CUDA context, found without linking libcuda.
#include <cuda.h>

namespace bb::profile {

/// cuptiProfilerInitialize, once per process; cuptiDeviceGetChipName crashes before it.
void ensure_initialized();

/// The calling thread's current CUDA context; throws api_error where there is none.
CUcontext current_context();

/// Waits for the current context's device; a failed kernel throws, `what` first in the message.
void synchronize_device(const char* what);

} // namespace bb::profile
