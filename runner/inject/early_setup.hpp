#pragma once
/// `bankbench attach --profiler-setup context`: a kernel of the library's own to run the range
/// profiler's first pass on a context the program has just created, so that the driver's profiler
/// set-up (about 0.18 s on an H100, docs/attach.md) is paid beside the program's own start rather
/// than inside its first profiled launch.
#include <cuda.h>

namespace bb::inject {

/// Launches an empty kernel of the library's own on `stream` of the current context (its module
/// loaded on the first call per context) and waits for it. Throws bb::api_error naming the CUDA
/// call that failed.
void run_empty_kernel(CUstream stream);

} // namespace bb::inject
