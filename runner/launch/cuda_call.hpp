#pragma once
/// BB_CUDA_CALL(expr): throw bb::cuda_error naming the call, the CUDA error and file:line.
#include <string>

#include <cuda_runtime_api.h>

#include "runner/common/cuda_error.hpp"

namespace bb {

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);

} // namespace bb

#define BB_CUDA_CALL(expr)                                                                                  \
  do {                                                                                                      \
    const cudaError_t bb_cuda_status_ = (expr);                                                             \
    if (bb_cuda_status_ != cudaSuccess) ::bb::throw_cuda_error(bb_cuda_status_, #expr, __FILE__, __LINE__); \
  } while (false)
