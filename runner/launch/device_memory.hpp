#pragma once
/// Where the problems' device buffers come from (kernels/common/device_buffer.cuh).
///
/// A DRAM-bound kernel's speed can depend on whether its buffer reuses memory an earlier buffer
/// of the process held and gave back: on an H200, a 256 MiB read ran 75 to 77 us in the first
/// 512 MiB of an allocation made after a 4 GiB cudaMalloc was freed, and 66 to 68 us everywhere else
/// and in every process that had not freed anything (bench/probes/placement_probe.cu). With cudaMalloc and cudaFree per
/// configuration, which buffers land on such memory depends on everything run before, so the same
/// suite timed 129, 136 or 142 us for one 256 MiB copy in different runs. The pool keeps what a
/// configuration frees mapped for the next (a CUDA memory pool whose release threshold is never
/// reached), and gives its unused memory back only where an allocation would not fit otherwise.
#include <cstddef>
#include <cstdint>
#include <string>

namespace bb::launch {

enum class allocator {
  pool,   ///< cudaMallocFromPoolAsync from a pool of this process that keeps freed memory mapped
  driver, ///< cudaMalloc and cudaFree for every buffer
};

/// "pool" or "driver"; anything else throws bb::usage_error.
allocator allocator_named(const std::string& name);
const char* name_of(allocator a);

/// Chooses the allocator; takes effect for buffers allocated after it. The default is pool.
void use_allocator(allocator a);
allocator current_allocator();

/// A buffer's memory and where it came from (a buffer goes back where it came from, whatever
/// allocator is chosen later).
struct device_block {
  void* ptr = nullptr;
  bool pooled = false;
};

/// Device memory for a buffer, on the current device; throws bb::cuda_error (with the code
/// cudaErrorMemoryAllocation where it does not fit, after the pool gave its unused memory back).
/// The pool's memory is ordered on the legacy default stream, where every problem launches.
device_block device_allocate(std::size_t bytes);
/// Gives a buffer back (to the pool, or to the driver). Never throws.
void device_release(const device_block& b) noexcept;

/// Memory the pool holds mapped but no buffer uses (0 with the driver allocator): device memory
/// "in use" between configurations is the driver's count less this.
std::uint64_t pool_idle_bytes();
/// The most memory the pool has held mapped at once in this process (0 with the driver allocator).
std::uint64_t pool_reserved_peak_bytes();

/// The current device's memory once the work in flight (frees included) is done.
struct device_memory_use {
  std::uint64_t total = 0;
  std::uint64_t free = 0;          ///< as the driver counts it: the pool's idle memory is not free
  std::uint64_t pool_reserved = 0; ///< mapped by the pool
  std::uint64_t pool_idle = 0;     ///< mapped by the pool, in no buffer
  /// What a buffer could have now: free, or idle in the pool.
  [[nodiscard]] std::uint64_t available() const { return free + pool_idle; }
  /// In use by this process's buffers and everything else on the device, the pool's idle part left out.
  [[nodiscard]] std::uint64_t in_use() const { return total - available(); }
};
/// Waits for the device, then reads its memory; false where it cannot (a sticky error, cleared
/// where it can be).
bool read_device_memory(device_memory_use& out);

} // namespace bb::launch
