// The modern reference: 16 floats per thread by float4 loads, warp shuffles, one shared word per warp.
#include "kernels/reduction/family.cuh"

namespace bb::reduction {
namespace {

constexpr int k_vectors = 4;                  // float4 loads in flight per thread
constexpr int k_thread_items = 4 * k_vectors; // floats per thread

__device__ float warp_sum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

/// Block b sums elements [b * block * 16, (b + 1) * block * 16): thread tid's k-th vector is
/// float4 number k * block + tid of the block's slice, so each load instruction is coalesced.
__global__ void __launch_bounds__(1024)
    shuffle_kernel(const float* __restrict__ in, float* __restrict__ partial, std::int64_t n) {
  __shared__ float warp_sums[32];
  const int tid = static_cast<int>(threadIdx.x);
  const int block = static_cast<int>(blockDim.x);
  const int lane = tid % 32, warp = tid / 32;
  const std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * block * k_thread_items;
  float4 v[k_vectors];
#pragma unroll
  for (int k = 0; k < k_vectors; ++k) {
    const std::int64_t e = base + 4 * (static_cast<std::int64_t>(k) * block + tid);
    if (e + 3 < n) {
      v[k] = *reinterpret_cast<const float4*>(in + e); // 16-byte aligned: e is a multiple of 4
    } else {
      v[k].x = e < n ? in[e] : 0.0f;
      v[k].y = e + 1 < n ? in[e + 1] : 0.0f;
      v[k].z = e + 2 < n ? in[e + 2] : 0.0f;
      v[k].w = 0.0f;
    }
  }
  float sum = 0.0f;
#pragma unroll
  for (int k = 0; k < k_vectors; ++k) sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
  sum = warp_sum(sum);
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    sum = warp_sum(lane < block / 32 ? warp_sums[lane] : 0.0f);
    if (lane == 0) partial[blockIdx.x] = sum;
  }
}

struct warp_shuffle_variant {
  static constexpr int k_items = k_thread_items;
  static void launch(const float* in, float* out, const shape& sh, cudaStream_t stream) {
    shuffle_kernel<<<static_cast<unsigned>(sh.blocks()), sh.block, 0, stream>>>(in, out, sh.n);
    BB_CUDA_CALL(cudaGetLastError());
  }
};

/// One store per warp (lane 0 writes warp_sums[warp]) and one load by warp 0 (lanes < warps).
model::access_plan shuffle_access_plan(const nlohmann::json& params) {
  const shape sh = checked_shape(params, k_thread_items);
  const auto blocks = static_cast<std::uint64_t>(sh.blocks());
  const int warps = sh.block / 32;
  model::access_plan plan;
  plan.access_bytes = sizeof(float);
  for (int w = 0; w < warps; ++w) {
    model::warp_access store;
    store.kind = model::access_kind::store;
    store.active = 1;
    store.address[0] = static_cast<std::uint32_t>(w) * 4;
    plan.add(blocks, store);
  }
  model::warp_access load;
  load.kind = model::access_kind::load;
  load.active = 0;
  for (int lane = 0; lane < warps; ++lane) {
    load.address[lane] = static_cast<std::uint32_t>(lane) * 4;
    load.active |= 1u << lane;
  }
  plan.add(blocks, load);
  return plan;
}

} // namespace

BB_REGISTER_VARIANT_WITH_PLAN(family(), "warp_shuffle",
                              "16 floats per thread by float4 loads, shuffle reduction, one shared word per warp",
                              factory<warp_shuffle_variant>(), shuffle_access_plan);
} // namespace bb::reduction
