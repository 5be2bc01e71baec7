// How does the time of a batch of back-to-back launches, bracketed by a pair of CUDA events, grow
// with the number of launches in it? bankbench times a kernel shorter than 50 us as batches of
// launches_per_sample launches and reports the batch's time over its launches; if a batch costs a
// fixed amount beyond its launches, that share changes whenever the number of launches does.
// Without bankbench: what it prints is the GPU's and the driver's.
//
// For each kernel and each batch size n in 1, 2, 3, 4, 6, 8, 12, 16: samples brackets of n
// launches, enqueued as bankbench's timing pass does (every bracket first, then one wait each),
// the sizes taken in turn over several rounds so that a slow stretch of the GPU is shared. Then a
// least-squares line T(n) = intercept + n * slope over the medians.
//
// usage: bb_batch_probe [--samples N] [--rounds N]
// Prints CSV: kernel, n, median_us, per_launch_us; then per kernel: kernel, fit, intercept_us,
// slope_us, max_residual_us.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "read_words.cuh"

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "bb_batch_probe: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

// Busy for `cycles` SM clock cycles in every block: a kernel whose time is set by the clock alone.
__global__ void spin(long long cycles, unsigned* sink) {
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
  if (threadIdx.x == 0 && cycles < 0) *sink = 1;
}

__global__ void copy_words(const uint4* __restrict__ in, uint4* __restrict__ out, std::size_t count) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
    out[i] = in[i];
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

struct kernel_case {
  std::string name;
  std::function<void()> launch;
};

// `count` brackets of n launches each, enqueued before the first wait; their times in us.
std::vector<double> brackets(const kernel_case& k, int n, int count) {
  std::vector<cudaEvent_t> ev(2 * static_cast<std::size_t>(count));
  for (auto& e : ev) check(cudaEventCreate(&e), "cudaEventCreate");
  for (int i = 0; i < 3; ++i) k.launch(); // warm-up, as bankbench's timing pass
  for (int s = 0; s < count; ++s) {
    check(cudaEventRecord(ev[2 * s], nullptr), "cudaEventRecord");
    for (int i = 0; i < n; ++i) k.launch();
    check(cudaEventRecord(ev[2 * s + 1], nullptr), "cudaEventRecord");
  }
  std::vector<double> t;
  for (int s = 0; s < count; ++s) {
    check(cudaEventSynchronize(ev[2 * s + 1]), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, ev[2 * s], ev[2 * s + 1]), "cudaEventElapsedTime");
    t.push_back(ms * 1e3);
  }
  for (auto& e : ev) cudaEventDestroy(e);
  return t;
}

} // namespace

int main(int argc, char** argv) {
  int samples = 8, rounds = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--samples" && has_value)
      samples = std::atoi(argv[++i]);
    else if (a == "--rounds" && has_value)
      rounds = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: bb_batch_probe [--samples N] [--rounds N]\n");
      return 2;
    }
  }
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  int clock_khz = 0;
  check(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0), "cudaDeviceGetAttribute");
  std::fprintf(stderr, "%s, %d SMs, clock %d MHz\n", prop.name, prop.multiProcessorCount, clock_khz / 1000);

  const std::size_t read_bytes = std::size_t{64} << 20, copy_bytes = std::size_t{32} << 20;
  uint4 *a = nullptr, *b = nullptr;
  unsigned* sink = nullptr;
  check(cudaMalloc(&a, read_bytes), "cudaMalloc");
  check(cudaMalloc(&b, copy_bytes), "cudaMalloc");
  check(cudaMalloc(&sink, sizeof(unsigned)), "cudaMalloc");
  check(cudaMemset(a, 0, read_bytes), "cudaMemset");
  const long long cycles_per_us = clock_khz / 1000;
  const int sms = prop.multiProcessorCount;

  std::vector<kernel_case> cases = {
      {"spin_20us_8_blocks", [=] { spin<<<8, 256>>>(20 * cycles_per_us, sink); }},
      {"spin_20us_all_sms", [=] { spin<<<sms, 256>>>(20 * cycles_per_us, sink); }},
      {"spin_2us_1_block", [=] { spin<<<1, 32>>>(2 * cycles_per_us, sink); }},
      {"spin_45us_4096_blocks", [=] { spin<<<4096, 128>>>(45 * cycles_per_us / 31, sink); }},
      {"read_64MiB", [=] { read_words<<<sms * 8, 256>>>(a, read_bytes / sizeof(uint4), sink); }},
      {"copy_32MiB", [=] { copy_words<<<sms * 8, 256>>>(a, b, copy_bytes / sizeof(uint4)); }},
  };
  const std::vector<int> sizes = {1, 2, 3, 4, 6, 8, 12, 16};
  std::printf("kernel,n,median_us,per_launch_us\n");
  std::vector<std::string> fits;
  for (const auto& k : cases) {
    std::vector<std::vector<double>> t(sizes.size());
    for (int r = 0; r < rounds; ++r)
      for (std::size_t j = 0; j < sizes.size(); ++j) {
        auto s = brackets(k, sizes[j], samples);
        t[j].insert(t[j].end(), s.begin(), s.end());
      }
    check(cudaDeviceSynchronize(), k.name.c_str());
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    std::vector<double> med;
    for (std::size_t j = 0; j < sizes.size(); ++j) {
      med.push_back(median(t[j]));
      std::printf("%s,%d,%.3f,%.3f\n", k.name.c_str(), sizes[j], med[j], med[j] / sizes[j]);
      sx += sizes[j];
      sy += med[j];
      sxx += double{1} * sizes[j] * sizes[j];
      sxy += sizes[j] * med[j];
    }
    const double m = static_cast<double>(sizes.size());
    const double slope = (m * sxy - sx * sy) / (m * sxx - sx * sx), intercept = (sy - slope * sx) / m;
    double worst = 0;
    for (std::size_t j = 0; j < sizes.size(); ++j)
      worst = std::max(worst, std::abs(med[j] - (intercept + slope * sizes[j])));
    char line[256];
    std::snprintf(line, sizeof line, "%s,fit,%.3f,%.3f,%.3f", k.name.c_str(), intercept, slope, worst);
    fits.push_back(line);
  }
  std::printf("kernel,fit,intercept_us,slope_us,max_residual_us\n");
  for (const auto& f : fits) std::printf("%s\n", f.c_str());
  cudaFree(a);
  cudaFree(b);
  cudaFree(sink);
  return 0;
}
