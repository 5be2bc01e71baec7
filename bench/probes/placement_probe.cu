// Does the speed of a DRAM-bound kernel depend on where its buffer lies, and is that the same in
// every process? Allocates one arena, then times a read of every chunk of it (and a copy of each
// chunk into the next) at the same offsets, without bankbench: what it prints is the GPU's and the
// driver's, not the runner's.
//
// usage: bb_placement_probe [--arena-mib N] [--chunk-mib N] [--before-mib N] [--hold] [--pool] [--reps N]
//   --before-mib N  allocate N MiB before the arena (and free it again unless --hold): another
//                   allocation history
//   --pool          both allocations from a memory pool that keeps freed memory mapped
//                   (cudaMallocFromPoolAsync, release threshold never reached), as bankbench's
//                   default allocator does
// Prints one CSV row per chunk: chunk, offset_mib, read_us (median), read_gbs, copy_us, copy_gbs.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "read_words.cuh"

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "bb_placement_probe: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

template <class Launch> double median_us(int reps, Launch launch) {
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "cudaEventCreate");
  check(cudaEventCreate(&b), "cudaEventCreate");
  launch(); // warm-up
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    check(cudaEventRecord(a), "cudaEventRecord");
    launch();
    check(cudaEventRecord(b), "cudaEventRecord");
    check(cudaEventSynchronize(b), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
    t.push_back(ms * 1e3);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

long long option(int argc, char** argv, const char* name, long long fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return std::atoll(argv[i + 1]);
  return fallback;
}

} // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::printf("usage: bb_placement_probe [--arena-mib N] [--chunk-mib N] [--before-mib N] [--hold] [--pool] "
                  "[--reps N]\n");
      return 0;
    }
  const std::size_t mib = std::size_t{1} << 20;
  const std::size_t arena_bytes = static_cast<std::size_t>(option(argc, argv, "--arena-mib", 8192)) * mib;
  const std::size_t chunk = static_cast<std::size_t>(option(argc, argv, "--chunk-mib", 256)) * mib;
  const std::size_t before = static_cast<std::size_t>(option(argc, argv, "--before-mib", 0)) * mib;
  const int reps = static_cast<int>(option(argc, argv, "--reps", 20));
  bool hold = false, pooled = false;
  for (int i = 1; i < argc; ++i) {
    hold = hold || std::strcmp(argv[i], "--hold") == 0;
    pooled = pooled || std::strcmp(argv[i], "--pool") == 0;
  }
  cudaMemPool_t pool = nullptr;
  if (pooled) {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    check(cudaMemPoolCreate(&pool, &props), "cudaMemPoolCreate");
    unsigned long long keep = ~0ull;
    check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep), "cudaMemPoolSetAttribute");
  }
  auto allocate = [&](void** p, std::size_t bytes, const char* what) {
    check(pooled ? cudaMallocFromPoolAsync(p, bytes, pool, nullptr) : cudaMalloc(p, bytes), what);
  };
  if (chunk == 0 || arena_bytes < 2 * chunk || reps < 1) {
    std::fprintf(stderr, "bb_placement_probe: the arena must hold at least two chunks, and --reps must be positive\n");
    return 2;
  }

  void* first = nullptr;
  if (before > 0) {
    allocate(&first, before, "allocation (before)");
    check(cudaMemset(first, 0, before), "cudaMemset (before)");
    if (!hold) check(pooled ? cudaFreeAsync(first, nullptr) : cudaFree(first), "free (before)");
  }
  char* arena = nullptr;
  unsigned* sink = nullptr;
  allocate(reinterpret_cast<void**>(&arena), arena_bytes, "allocation (arena)");
  check(cudaMemset(arena, 0, arena_bytes), "cudaMemset (arena)");
  check(cudaMalloc(&sink, sizeof(unsigned)), "cudaMalloc (sink)");
  int sms = 0;
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "cudaDeviceGetAttribute");

  std::printf("chunk,offset_mib,read_us,read_gbs,copy_us,copy_gbs\n");
  const std::size_t chunks = arena_bytes / chunk;
  for (std::size_t c = 0; c < chunks; ++c) {
    const auto* words = reinterpret_cast<const uint4*>(arena + c * chunk);
    const double read = median_us(reps, [&] { read_words<<<4 * sms, 512>>>(words, chunk / sizeof(uint4), sink); });
    check(cudaGetLastError(), "read_words");
    double copy = 0;
    if (c + 1 < chunks)
      copy = median_us(reps, [&] {
        check(cudaMemcpyAsync(arena + (c + 1) * chunk, arena + c * chunk, chunk, cudaMemcpyDeviceToDevice),
              "cudaMemcpyAsync");
      });
    std::printf("%zu,%zu,%.2f,%.1f,%.2f,%.1f\n", c, c * chunk / mib, read, chunk / read / 1e3, copy,
                copy > 0 ? 2.0 * chunk / copy / 1e3 : 0.0);
  }
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  return 0;
}
