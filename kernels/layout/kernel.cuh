#pragma once
// The layout family's device code: layout_kernel, its helpers and every variant's shared-memory
// layout, with no host-only headers, so its code twin (bench/code_twins/layout.yaml) compiles it alone.
#include <cstdint>

#include <cuda_runtime.h>

#include "kernels/common/host_device.hpp"
#include "kernels/common/shared_load.cuh"

namespace bb::layout {

inline constexpr int k_block = 256; // particles per block

/// Stores particle t's fields where Layout puts them: one 16-byte store of the whole struct, or
/// one 4-byte store per field (the structure of arrays has no pad field).
template <class Layout> __device__ __forceinline__ void store_particle(unsigned char* smem, int t, float4 p) {
  if constexpr (Layout::k_struct_access) {
    *reinterpret_cast<float4*>(smem + Layout::offset(t, 0)) = p;
  } else {
    *reinterpret_cast<float*>(smem + Layout::offset(t, 0)) = p.x;
    *reinterpret_cast<float*>(smem + Layout::offset(t, 1)) = p.y;
    *reinterpret_cast<float*>(smem + Layout::offset(t, 2)) = p.z;
  }
}

/// Loads x, y and z of particle t: one LDS.128 where Layout reads whole structs, else one LDS per
/// field, each its own warp-wide request (smem::load keeps the compiler from merging them).
template <class Layout> __device__ __forceinline__ float3 load_particle(const unsigned char* smem, int t) {
  if constexpr (Layout::k_vector_load) {
    const float4 v = smem::load(reinterpret_cast<const float4*>(smem + Layout::offset(t, 0)));
    return make_float3(v.x, v.y, v.z);
  } else {
    const float x = smem::load(reinterpret_cast<const float*>(smem + Layout::offset(t, 0)));
    const float y = smem::load(reinterpret_cast<const float*>(smem + Layout::offset(t, 1)));
    const float z = smem::load(reinterpret_cast<const float*>(smem + Layout::offset(t, 2)));
    return make_float3(x, y, z);
  }
}

template <class Layout> __global__ void __launch_bounds__(k_block)
    layout_kernel(const float4* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ __align__(16) unsigned char smem[Layout::k_bytes];
  const int t = static_cast<int>(threadIdx.x);
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * k_block + t;
  if (i < n) store_particle<Layout>(smem, t, in[i]);
  __syncthreads();
  if (i < n) {
    const float3 p = load_particle<Layout>(smem, t);
    out[i] = (p.x + p.y) + p.z;
  }
}

/// Array of structs: particle t's field f (x, y, z, pad) at byte 16 t + 4 f.
struct struct_array {
  static constexpr int k_bytes = k_block * 16;
  static constexpr bool k_struct_access = true; // the struct moves in as one float4
  BB_HD static constexpr int offset(int particle, int field) { return particle * 16 + field * 4; }
};

/// Structure of arrays: x[256], y[256], z[256], field f of particle t at byte 1024 f + 4 t.
struct array_struct {
  static constexpr int k_bytes = 3 * k_block * 4;
  static constexpr bool k_struct_access = false;
  static constexpr bool k_vector_load = false;
  BB_HD static constexpr int offset(int particle, int field) { return field * k_block * 4 + particle * 4; }
};

namespace {

// Array of 16-byte structs read a field at a time: lane l reads word 4l + f, so banks f, f+4, ..., f+28 serve 4 words each (4-way).
struct aos_fields : struct_array {
  static constexpr bool k_vector_load = false;
};

// Array of 16-byte structs read whole: one 16-byte load per lane, 512 contiguous bytes in the 4 wavefronts they need.
struct aos_whole : struct_array {
  static constexpr bool k_vector_load = true;
};

} // namespace

} // namespace bb::layout
