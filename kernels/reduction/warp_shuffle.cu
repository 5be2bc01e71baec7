// The modern reference: 16 floats per thread by float4 loads, warp shuffles, one shared word per warp.
#include "kernels/reduction/family.cuh"

namespace bb::reduction {
namespace {

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
