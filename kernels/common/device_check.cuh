#pragma once
/// Verification on the GPU, for outputs whose expected element is a pure function of its index
/// and of the seeded generators: one kernel counts the wrong elements and finds the smallest wrong
/// index, and only that element comes back to the host to be worded. A check costs one kernel and
/// a 16-byte copy at any output size, and no host memory.
#include <climits>
#include <cstddef>
#include <string>
#include <type_traits>

#include <cuda_runtime.h>

#include "kernels/common/grid_stride.hpp"
#include "kernels/common/host_device.hpp"
#include "kernels/common/same_bytes.hpp"
#include "runner/launch/cuda_call.hpp"
#include "runner/registry/registry.hpp"

namespace bb {

/// What a device check found: the wrong units its functor reported and the smallest index that
/// had one (ULLONG_MAX where none did). unsigned long long, the type the device atomics take.
struct device_tally {
  unsigned long long wrong = 0;
  unsigned long long first = ULLONG_MAX;
};

namespace detail {

/// The device tally, allocated once per process (on the device current at the first check), so a
/// check allocates nothing.
class tally_slot {
public:
  static device_tally* get() {
    static tally_slot s;
    return s.m_tally;
  }
  tally_slot(const tally_slot&) = delete;
  tally_slot& operator=(const tally_slot&) = delete;

private:
  tally_slot() { BB_CUDA_CALL(cudaMalloc(reinterpret_cast<void**>(&m_tally), sizeof(device_tally))); }
  ~tally_slot() { cudaFree(m_tally); } // at exit: the context may be gone already; nothing to report
  device_tally* m_tally = nullptr;
};

/// Adds a thread's wrong units and its smallest wrong index to the tally: the warp combines its
/// lanes, and one lane with any wrong unit updates the tally. Every lane of the warp must call it.
__device__ inline void warp_add_to_tally(unsigned long long mine, unsigned long long first, device_tally* tally) {
  for (int offset = 16; offset > 0; offset >>= 1) {
    mine += __shfl_down_sync(0xffffffffu, mine, offset);
    const unsigned long long other = __shfl_down_sync(0xffffffffu, first, offset);
    first = other < first ? other : first;
  }
  if (threadIdx.x % 32 == 0 && mine != 0) {
    atomicAdd(&tally->wrong, mine);
    atomicMin(&tally->first, first);
  }
}

/// Grid stride over got[0, count): each thread adds up wrong(i, got[i]) and keeps its first wrong
/// i (its smallest, as i only grows). Blocks are whole warps and every thread reaches the shuffles.
template <class T, class Wrong>
__global__ void tally_kernel(const T* __restrict__ got, std::size_t count, Wrong wrong, device_tally* tally) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long mine = 0, first = ULLONG_MAX;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    const unsigned w = wrong(i, got[i]);
    if (w != 0 && mine == 0) first = i;
    mine += w;
  }
  warp_add_to_tally(mine, first, tally);
}

/// Turns a check's ok(i, got_i) into the unit count tally_kernel adds: 1 where it does not hold.
template <class Ok> struct one_if_not_ok {
  Ok ok;
  template <class T> BB_HD unsigned operator()(std::size_t i, const T& got) const { return ok(i, got) ? 0u : 1u; }
};

} // namespace detail

/// Runs a check kernel after the work already queued on the default stream: launch(tally)
/// enqueues it on the default stream, with the tally cleared, and it adds to the tally through
/// detail::warp_add_to_tally. Returns what the kernel found.
template <class Launch> device_tally tally_with(Launch launch) {
  device_tally result;
  device_tally* tally = detail::tally_slot::get();
  BB_CUDA_CALL(cudaMemsetAsync(&tally->wrong, 0, sizeof(tally->wrong), nullptr));
  BB_CUDA_CALL(cudaMemsetAsync(&tally->first, 0xff, sizeof(tally->first), nullptr)); // ULLONG_MAX
  launch(tally);
  BB_CUDA_CALL(cudaGetLastError());
  BB_CUDA_CALL(cudaMemcpyAsync(&result, tally, sizeof(result), cudaMemcpyDeviceToHost, nullptr));
  BB_CUDA_CALL(cudaStreamSynchronize(nullptr));
  return result;
}

/// Runs wrong(i, got[i]) on the device for every i in [0, count), after the work already queued
/// on the default stream, and adds up what it returns: the number of wrong units (bytes of a word,
/// say) in element i, 0 where it is right. Wrong is trivially copyable, with a BB_HD
/// `unsigned operator()(std::size_t i, const T& got_i) const`.
template <class T, class Wrong> device_tally tally_on_device(const T* got, std::size_t count, Wrong wrong) {
  static_assert(std::is_trivially_copyable_v<Wrong>, "a check functor is copied to the device");
  if (count == 0) return device_tally{};
  return tally_with([&](device_tally* tally) {
    constexpr int k_threads = 256;
    detail::tally_kernel<T, Wrong><<<grid_stride_blocks(count, k_threads), k_threads>>>(got, count, wrong, tally);
  });
}

/// Element i of a device array, copied back alone (to word a mismatch).
template <class T> T read_element(const T* src, std::size_t i) {
  T v;
  BB_CUDA_CALL(cudaMemcpy(&v, src + i, sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

/// Checks got[0, count) on the device: ok(i, got_i) says whether element i, which holds got_i, is
/// right (write it so that a NaN fails). Ok is trivially copyable with a BB_HD
/// `bool operator()(std::size_t i, const T& got_i) const`. describe(i, got_i), on the host, words
/// the smallest wrong index, e.g. "out[3,17] = 0.5, expected 0.25".
template <class T, class Ok, class Describe>
verify_result verify_on_device(const T* got, std::size_t count, Ok ok, Describe describe) {
  const device_tally t = tally_on_device(got, count, detail::one_if_not_ok<Ok>{ok});
  verify_result r;
  r.checked = count;
  r.mismatches = t.wrong;
  if (t.wrong != 0) r.first_mismatch = describe(static_cast<std::size_t>(t.first), read_element(got, t.first));
  r.ok = r.mismatches == 0;
  return r;
}

} // namespace bb
