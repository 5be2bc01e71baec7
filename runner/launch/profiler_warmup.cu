#include "runner/launch/profiler_warmup.hpp"

#include "runner/launch/cuda_call.hpp"

namespace bb::launch {

namespace {
__global__ void empty_kernel() {}
} // namespace

void warm_up_profiler(profile::session& counters, bool grouped) {
  const auto launch = [] {
    empty_kernel<<<1, 32>>>();
    BB_CUDA_CALL(cudaGetLastError());
  };
  if (grouped)
    counters.profile_group({{launch, 1}}, [](std::size_t) {});
  else
    counters.profile(launch, 1);
}

} // namespace bb::launch
