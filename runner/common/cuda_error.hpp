#pragma once
/// bb::cuda_error: a CUDA runtime failure that keeps its cudaError_t, so that callers tell an
/// out-of-memory (cudaErrorMemoryAllocation) from any other failure by the code, not the text.
/// Header only: included by the modules that link the CUDA runtime (profile, launch, source).
#include <string>

#include <cuda_runtime_api.h>

#include "runner/common/error.hpp"

namespace bb {

class cuda_error : public api_error {
public:
  cuda_error(cudaError_t code, const std::string& what) : api_error(what), m_code(code) {}
  [[nodiscard]] cudaError_t code() const noexcept { return m_code; }

private:
  cudaError_t m_code;
};

} // namespace bb
