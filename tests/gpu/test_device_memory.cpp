// Where problems' buffers come from (launch/device_memory.hpp): the pool keeps what a buffer gave
// back mapped for the next one, and gives it up where a larger buffer would not fit otherwise.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>

#include "kernels/common/device_buffer.cuh"
#include "gpu_test_util.hpp"
#include "runner/launch/device.hpp"
#include "runner/launch/device_memory.hpp"

namespace {

using bb::launch::allocator;

struct allocator_scope { // restores the default for the tests after this one
  explicit allocator_scope(allocator a) { bb::launch::use_allocator(a); }
  ~allocator_scope() { bb::launch::use_allocator(allocator::pool); }
  allocator_scope(const allocator_scope&) = delete;
  allocator_scope& operator=(const allocator_scope&) = delete;
};

constexpr std::size_t k_mib = std::size_t{1} << 20;

TEST(gpu_device_memory, the_pool_keeps_a_buffer_given_back_for_the_next) {
  BB_REQUIRE_GPU();
  bb::launch::open_device(0);
  const allocator_scope scope(allocator::pool);
  const auto a = bb::launch::device_allocate(256 * k_mib);
  ASSERT_NE(a.ptr, nullptr);
  EXPECT_TRUE(a.pooled);
  const std::uint64_t peak = bb::launch::pool_reserved_peak_bytes();
  EXPECT_GE(peak, 256 * k_mib);
  bb::launch::device_release(a);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_GE(bb::launch::pool_idle_bytes(), 256 * k_mib); // still mapped, by no buffer
  const auto b = bb::launch::device_allocate(256 * k_mib);
  EXPECT_EQ(bb::launch::pool_reserved_peak_bytes(), peak); // the same memory again, nothing new mapped
  bb::launch::device_release(b);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

TEST(gpu_device_memory, a_buffer_larger_than_what_is_free_beside_the_pool_still_fits) {
  BB_REQUIRE_GPU();
  bb::launch::open_device(0);
  const allocator_scope scope(allocator::pool);
  bb::launch::device_memory_use now;
  ASSERT_TRUE(bb::launch::read_device_memory(now));
  const std::size_t available = now.available();
  // 45 % held by the pool after its buffer is given back, then 70 %: more than the driver has
  // free beside the pool, and more than the pool's block, so the pool must give its memory up.
  const std::size_t first = available / 100 * 45 / k_mib * k_mib, second = available / 100 * 70 / k_mib * k_mib;
  bb::launch::device_release(bb::launch::device_allocate(first));
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_GE(bb::launch::pool_idle_bytes(), first);
  bb::device_buffer<char> big(second);
  EXPECT_NE(big.get(), nullptr);
  EXPECT_EQ(cudaMemset(big.get(), 1, 4096), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

TEST(gpu_device_memory, the_driver_allocator_gives_every_buffer_back_to_the_driver) {
  BB_REQUIRE_GPU();
  bb::launch::open_device(0);
  const allocator_scope scope(allocator::driver);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::size_t free_before = 0, free_held = 0, free_after = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_before, &total), cudaSuccess);
  {
    bb::device_buffer<char> b(512 * k_mib);
    ASSERT_EQ(cudaMemGetInfo(&free_held, &total), cudaSuccess);
  }
  ASSERT_EQ(cudaMemGetInfo(&free_after, &total), cudaSuccess);
  EXPECT_GE(free_before - free_held, 512 * k_mib);
  EXPECT_EQ(free_after, free_before);
}

} // namespace
