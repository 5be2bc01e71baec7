#include "runner/launch/device_memory.hpp"

#include <algorithm>
#include <atomic>
#include <limits>
#include <map>
#include <mutex>

#include <cuda_runtime_api.h>
#include <spdlog/spdlog.h>

#include "runner/common/error.hpp"
#include "runner/launch/cuda_call.hpp"

namespace bb::launch {

namespace {

std::atomic<allocator> g_allocator{allocator::pool};
std::mutex g_mutex;                   // guards g_pools
std::map<int, cudaMemPool_t> g_pools; // per device; nullptr where the device has no memory pools

// The pool of the current device, made on first use; nullptr where pools are not supported.
cudaMemPool_t current_pool() {
  int device = 0;
  BB_CUDA_CALL(cudaGetDevice(&device));
  const std::lock_guard<std::mutex> lock(g_mutex);
  const auto found = g_pools.find(device);
  if (found != g_pools.end()) return found->second;
  int supported = 0;
  if (cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device) != cudaSuccess || supported == 0) {
    (void)cudaGetLastError();
    spdlog::debug("device {} has no memory pools: buffers come from cudaMalloc", device);
    return g_pools[device] = nullptr;
  }
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaMemPool_t pool = nullptr;
  BB_CUDA_CALL(cudaMemPoolCreate(&pool, &props));
  std::uint64_t keep_everything = std::numeric_limits<std::uint64_t>::max();
  BB_CUDA_CALL(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_everything));
  return g_pools[device] = pool;
}

cudaMemPool_t existing_pool() {
  {
    const std::lock_guard<std::mutex> lock(g_mutex);
    if (g_pools.empty()) return nullptr; // no CUDA call in a process that never allocated
  }
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    (void)cudaGetLastError();
    return nullptr;
  }
  const std::lock_guard<std::mutex> lock(g_mutex);
  const auto found = g_pools.find(device);
  return found == g_pools.end() ? nullptr : found->second;
}

std::uint64_t pool_attribute(cudaMemPool_t pool, cudaMemPoolAttr what) {
  if (pool == nullptr) return 0; // no CUDA call in a process that never allocated
  std::uint64_t value = 0;
  if (cudaMemPoolGetAttribute(pool, what, &value) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return value;
}

// The pool's mapped memory and the part of it in buffers; zeros without a pool.
struct pool_usage {
  std::uint64_t reserved = 0, used = 0;
  [[nodiscard]] std::uint64_t idle() const { return reserved > used ? reserved - used : 0; }
};

pool_usage read_pool_usage() {
  cudaMemPool_t pool = existing_pool();
  return {pool_attribute(pool, cudaMemPoolAttrReservedMemCurrent), pool_attribute(pool, cudaMemPoolAttrUsedMemCurrent)};
}

} // namespace

allocator allocator_named(const std::string& name) {
  if (name == "pool") return allocator::pool;
  if (name == "driver") return allocator::driver;
  throw usage_error("unknown allocator '" + name + "': use pool or driver");
}

const char* name_of(allocator a) { return a == allocator::pool ? "pool" : "driver"; }

void use_allocator(allocator a) { g_allocator.store(a); }

allocator current_allocator() { return g_allocator.load(); }

device_block device_allocate(std::size_t bytes) {
  device_block b;
  if (bytes == 0) return b;
  cudaMemPool_t pool = current_allocator() == allocator::pool ? current_pool() : nullptr;
  if (pool == nullptr) {
    BB_CUDA_CALL(cudaMalloc(&b.ptr, bytes));
    return b;
  }
  cudaError_t status = cudaMallocFromPoolAsync(&b.ptr, bytes, pool, nullptr);
  if (status == cudaErrorMemoryAllocation) {
    // What the pool keeps mapped may be in the way: wait for the frees in flight, give the
    // unused memory back to the driver and try once more.
    (void)cudaGetLastError();
    BB_CUDA_CALL(cudaDeviceSynchronize());
    BB_CUDA_CALL(cudaMemPoolTrimTo(pool, 0));
    spdlog::debug("memory pool trimmed to fit {} MiB", bytes >> 20);
    status = cudaMallocFromPoolAsync(&b.ptr, bytes, pool, nullptr);
  }
  if (status != cudaSuccess)
    throw_cuda_error(status, "cudaMallocFromPoolAsync(&ptr, bytes, pool, nullptr)", __FILE__, __LINE__);
  b.pooled = true;
  return b;
}

void device_release(const device_block& b) noexcept {
  if (b.ptr == nullptr) return;
  // No throw from here (destructors call it); a sticky error shows elsewhere.
  if (b.pooled)
    (void)cudaFreeAsync(b.ptr, nullptr);
  else
    (void)cudaFree(b.ptr);
}

std::uint64_t pool_idle_bytes() { return read_pool_usage().idle(); }

std::uint64_t pool_reserved_peak_bytes() { return pool_attribute(existing_pool(), cudaMemPoolAttrReservedMemHigh); }

bool read_device_memory(device_memory_use& out) {
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaDeviceSynchronize() != cudaSuccess || cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  out.total = total_bytes;
  out.free = free_bytes;
  const pool_usage pool = read_pool_usage();
  out.pool_reserved = pool.reserved;
  out.pool_idle = std::min(pool.idle(), out.total - out.free);
  return true;
}

} // namespace bb::launch
