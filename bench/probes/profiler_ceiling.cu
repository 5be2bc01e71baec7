// The range profiler's ceiling on one host: how many configurations per second CUPTI's range
// profiler serves with N GPUs profiling at once, from N threads of one process (GPUs 0..N-1) or
// from N processes (run one per GPU, CUDA_VISIBLE_DEVICES=i). Each worker profiles groups of 16
// launches of a small shared-memory kernel on its own GPU through bankbench's own session
// (profile_group: user replay, user ranges, the bank_conflicts set, 2 passes) for SECONDS, and
// prints its configurations per second and the last group's breakdown (push, launch, pop, Stop).
// usage: bb_profiler_ceiling_probe threads N SECONDS (profiler-ceiling.sh runs the comparison)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <cuda.h>
#include <cuda_runtime.h>

#include "runner/common/metrics.hpp"
#include "runner/profile/session.hpp"

__global__ void touch(float* out) {
  __shared__ float s[32 * 33];
  const int t = threadIdx.x;
  s[(t % 32) * 32 + t / 32] = t;
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = s[t];
}

int main(int argc, char** argv) {
  const int n = argc > 2 ? std::atoi(argv[2]) : 1;
  const double seconds = argc > 3 ? std::atof(argv[3]) : 5.0;
  const auto metrics = bb::metrics::find_set("bank_conflicts")->metrics;
  std::mutex print;
  std::vector<std::thread> workers;
  std::vector<double> per_item(n, 0);
  std::vector<long> items_done(n, 0);
  auto go = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  for (int d = 0; d < n; ++d)
    workers.emplace_back([&, d] {
      cudaSetDevice(d);
      cudaFree(nullptr);
      CUcontext ctx = nullptr;
      cuCtxGetCurrent(&ctx);
      float* out = nullptr;
      cudaMalloc(&out, 8 * 1024 * sizeof(float));
      auto s = bb::profile::session::create(d, ctx, metrics);
      std::vector<bb::profile::session::group_item> items(16);
      for (auto& it : items) it.launch = [&] { touch<<<8, 1024>>>(out); };
      (void)s->profile_group(items, [](std::size_t) {}); // warm
      std::this_thread::sleep_until(go);
      const auto t0 = std::chrono::steady_clock::now();
      long groups = 0;
      while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < seconds) {
        (void)s->profile_group(items, [](std::size_t) {});
        ++groups;
      }
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      per_item[d] = ms / (groups * 16.0);
      items_done[d] = groups * 16;
      std::lock_guard<std::mutex> hold(print);
      std::printf("device %d: %ld configurations in %.0f ms: %.3f ms each; last: %s\n", d, groups * 16, ms, per_item[d],
                  s->last_breakdown().c_str());
    });
  for (auto& w : workers) w.join();
  long total = 0;
  for (long v : items_done) total += v;
  std::printf("threads %d: %.1f configurations per second in all\n", n, total / seconds);
  return 0;
}
