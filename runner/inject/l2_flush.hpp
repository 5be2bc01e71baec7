#pragma once
/// `bankbench attach --cache-control all`: the device's L2 emptied before each profiled launch, as
/// `run` does before each counter pass (runner/launch/cache_flush.hpp) and Nsight Compute does by
/// default, on the driver API (the program brings its own CUDA runtime, or none).
#include <cuda.h>

namespace bb::inject {

/// Reads a buffer twice the size of L2 around L1 in the current context `ctx` and waits for it.
/// The buffer and the reading kernel are made once per context and kept (the program's memory is
/// not touched). Throws bb::api_error naming the CUDA call that failed.
void flush_l2(CUcontext ctx);

} // namespace bb::inject
