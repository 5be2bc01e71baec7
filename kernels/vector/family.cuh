#pragma once
// Vector family: a batch of 32 x 32 float tiles copied through a shared tile[32][pitch], one block
// per tile. Rows are stored one float per lane; then the tile is read back row-major with loads
// of V floats per lane (float, float2 or float4), the measured access: a warp reads 32 x V
// floats, V rows, each row taken by 32 / V lanes (the whole, half or quarter warp).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "kernels/common/params.hpp"
#include "kernels/common/copied_input.hpp"
#include "kernels/common/in_out_problem.cuh"
#include "kernels/common/device_buffer.cuh"
#include "kernels/common/device_check.cuh"
#include "kernels/common/device_fill.cuh"
#include "kernels/common/uniform.hpp"
#include "kernels/vector/kernel.cuh"
#include "runner/launch/cuda_call.hpp"
#include "runner/registry/registry.hpp"

namespace bb::vector {

inline constexpr int k_max_pitch = 64;
inline constexpr std::int64_t k_max_tiles = 1 << 18; // 1 GiB of input

inline const family_info& family() {
  static const family_info f{"vector",
                             "row reads of float tile[32][pitch] with float, float2 or float4 loads",
                             {{"pitch", 32,
                               "floats per row of the shared tile, 32 to 64 (a multiple of the vector width)"},
                              {"batch", 16384, "32 x 32 tiles in the batch, one block each (16384: 2^24 floats)"}}};
  return f;
}

struct config {
  tile_shape shape;
  std::int64_t tiles = 0;
};

/// The parameters for loads of V floats; unsupported_parameter outside what the kernel handles.
inline config checked_config(const nlohmann::json& params, int v) {
  config c;
  const auto pitch = param::in_range(params, "pitch", k_side, k_max_pitch);
  if (pitch % v != 0)
    throw unsupported_parameter("pitch = " + std::to_string(pitch) + " is not a multiple of " + std::to_string(v) +
                                ": rows of " + std::to_string(4 * v) + "-byte loads must start " +
                                std::to_string(4 * v) + "-byte aligned");
  c.shape.pitch = static_cast<int>(pitch);
  c.tiles = param::in_range(params, "batch", 1, k_max_tiles);
  return c;
}

/// Seeded inputs, launch and the check for loads of V floats.
template <int V> class vector_problem final : public in_out_problem<float> {
public:
  vector_problem(const config& c, std::uint64_t seed)
      : in_out_problem(static_cast<std::size_t>(c.tiles) * k_tile_floats,
                       static_cast<std::size_t>(c.tiles) * k_tile_floats),
        m_config(c),
        m_seed(seed) {
    fill_uniform_device(m_in.get(), m_in.size(), seed);
  }

  void launch(void* stream) override {
    const std::size_t smem = static_cast<std::size_t>(k_side) * m_config.shape.pitch * sizeof(float);
    vector_kernel<V><<<static_cast<unsigned>(m_config.tiles), k_block, smem, static_cast<cudaStream_t>(stream)>>>(
        m_in.get(), m_out.get(), m_config.shape);
    BB_CUDA_CALL(cudaGetLastError());
  }

  /// Bit-exact, it is a copy: out = in, checked on the GPU.
  verify_result verify() override { return verify_each(copied_input{m_seed}); }

  [[nodiscard]] int smem_access_bytes() const override { return 4 * V; }

private:
  config m_config;
  std::uint64_t m_seed = 0;
};

template <int V> problem_factory factory() {
  return [](const nlohmann::json& params, std::uint64_t seed) -> std::unique_ptr<problem> {
    return std::make_unique<vector_problem<V>>(checked_config(params, V), seed);
  };
}

/// vector_kernel's shared-memory requests, from the same tile_shape::offset: 32 scalar row stores
/// and 32 / V loads of 32 vectors per tile, every tile alike.
template <int V> model::access_plan shared_access_plan(const nlohmann::json& params) {
  const config c = checked_config(params, V);
  const auto tiles = static_cast<std::uint64_t>(c.tiles);
  model::access_plan plan;
  plan.access_bytes = 4 * V;
  for (int first = 0; first < k_tile_floats; first += 32) { // one warp request: floats first..first+31
    model::warp_access store;
    store.kind = model::access_kind::store;
    for (int lane = 0; lane < 32; ++lane) {
      const int e = first + lane;
      store.address[static_cast<std::size_t>(lane)] =
          static_cast<std::uint32_t>(c.shape.offset(e / k_side, e % k_side)) * 4;
    }
    plan.add(tiles, store);
  }
  for (int first = 0; first < k_tile_floats / V; first += 32) { // one warp request: vectors first..first+31
    model::warp_access load;
    load.width = 4 * V;
    for (int lane = 0; lane < 32; ++lane) {
      const int e = (first + lane) * V;
      load.address[static_cast<std::size_t>(lane)] =
          static_cast<std::uint32_t>(c.shape.offset(e / k_side, e % k_side)) * 4;
    }
    plan.add(tiles, load);
  }
  plan.tile = model::make_tile_layout("float tile", k_side, k_side, 4, c.shape.pitch,
                                      [&](int r, int col) { return c.shape.offset(r, col); });
  return plan;
}

} // namespace bb::vector
