#include "runner/launch/cuda_call.hpp"

namespace bb {

void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  throw cuda_error(err, std::string(call) + " failed: " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) +
                            ") at " + file + ":" + std::to_string(line));
}

} // namespace bb
