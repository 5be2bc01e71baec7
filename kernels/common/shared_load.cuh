#pragma once
/// smem::load(p): exactly one shared-memory load of sizeof(T) bytes per lane (LDS.U8, LDS.U16,
/// LDS, LDS.64 or LDS.128), which neither the compiler nor ptxas may merge with its neighbours
/// (four LDS become one LDS.128 where the address is provably aligned), split, or hoist out of a
/// loop. Kernels whose point is one textbook access pattern read through it, so the counters see
/// the pattern written in the source and not what the optimiser made of it.
#include <cstdint>

#include <cuda_runtime.h>

namespace bb::smem {

__device__ __forceinline__ std::uint32_t address_of(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

template <class T> __device__ T load(const T* p);

template <> __device__ __forceinline__ std::uint8_t load(const std::uint8_t* p) {
  std::uint32_t v;
  asm volatile("ld.volatile.shared.u8 %0, [%1];" : "=r"(v) : "r"(address_of(p)) : "memory");
  return static_cast<std::uint8_t>(v);
}
template <> __device__ __forceinline__ std::uint16_t load(const std::uint16_t* p) {
  std::uint32_t v;
  asm volatile("ld.volatile.shared.u16 %0, [%1];" : "=r"(v) : "r"(address_of(p)) : "memory");
  return static_cast<std::uint16_t>(v);
}
template <> __device__ __forceinline__ std::uint32_t load(const std::uint32_t* p) {
  std::uint32_t v;
  asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(v) : "r"(address_of(p)) : "memory");
  return v;
}
template <> __device__ __forceinline__ float load(const float* p) {
  float v;
  asm volatile("ld.volatile.shared.f32 %0, [%1];" : "=f"(v) : "r"(address_of(p)) : "memory");
  return v;
}
template <> __device__ __forceinline__ uint2 load(const uint2* p) {
  uint2 v;
  asm volatile("ld.volatile.shared.v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "r"(address_of(p)) : "memory");
  return v;
}
template <> __device__ __forceinline__ uint4 load(const uint4* p) {
  uint4 v;
  asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(address_of(p))
               : "memory");
  return v;
}
template <> __device__ __forceinline__ float4 load(const float4* p) {
  float4 v;
  asm volatile("ld.volatile.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(address_of(p))
               : "memory");
  return v;
}

} // namespace bb::smem
