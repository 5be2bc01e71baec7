#pragma once
// Column-access family: a batch of square float tiles, each transposed through shared memory by
// one block. Rows of the tile are written from coalesced global reads; then each warp reads whole
// columns (lane = row), the access the textbook calls 32-way. Variants differ only in the tile's
// side and row pitch (Layout); the block shape (block_rows warps) does not change the signature.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "kernels/common/in_out_problem.cuh"
#include "kernels/common/params.hpp"
#include "kernels/common/device_buffer.cuh"
#include "kernels/common/device_check.cuh"
#include "kernels/common/device_fill.cuh"
#include "kernels/common/host_device.hpp"
#include "kernels/common/uniform.hpp"
#include "kernels/column_access/kernel.cuh"
#include "runner/launch/cuda_call.hpp"
#include "runner/registry/registry.hpp"

namespace bb::column_access {

inline constexpr std::int64_t k_max_tiles = 1 << 18; // 1 GiB of input at 32 x 32 floats

inline const family_info& family() {
  static const family_info f{
      "column_access",
      "a warp reads one column of a float tile (lane = row): tile[32][32], [32][33] and [31][31]",
      {{"block_rows", 32,
        "warps per block, 1 to 32: 1 is block (32, 1), one warp walks every row and column; 32 is "
        "block (32, 32), warp w writes row w and reads column w"},
       {"batch", 1024, "tiles in the batch, one block each"}}};
  return f;
}

struct shape {
  int block_rows = 0;
  std::int64_t tiles = 0;
};

/// The parameters of a configuration; unsupported_parameter outside what the kernel handles.
inline shape checked_shape(const nlohmann::json& params) {
  shape s;
  s.block_rows = static_cast<int>(param::in_range(params, "block_rows", 1, k_max_block_rows));
  s.tiles = param::in_range(params, "batch", 1, k_max_tiles);
  return s;
}

/// Lanes of a warp that hold a row (store) or read a row's element (load): one per tile row.
template <class Layout> constexpr std::uint32_t active_lanes() {
  return Layout::k_side == k_lanes ? 0xffffffffu : (1u << Layout::k_side) - 1;
}

/// Buffers, seeded inputs, launch and the check shared by every column-access variant.
/// Output i holds element (c, r) of tile t, the input's (r, c): uniform_at of its index.
template <int Side> struct tile_transposed {
  static constexpr std::size_t k_tile_elements = static_cast<std::size_t>(Side) * Side;
  std::uint64_t seed;
  BB_HD float expected(std::size_t i) const {
    const std::size_t t = i / k_tile_elements, e = i % k_tile_elements;
    return host::uniform_at(seed, t * k_tile_elements + (e % Side) * Side + e / Side);
  }
  BB_HD bool operator()(std::size_t i, float got) const { return same_bytes(got, expected(i)); }
};

template <class Layout> class column_problem final : public in_out_problem<float> {
public:
  column_problem(const nlohmann::json& params, std::uint64_t seed) : column_problem(checked_shape(params), seed) {}
  column_problem(const shape& s, std::uint64_t seed)
      : in_out_problem(static_cast<std::size_t>(s.tiles) * k_tile_elements,
                       static_cast<std::size_t>(s.tiles) * k_tile_elements),
        m_shape(s),
        m_seed(seed) {
    fill_uniform_device(m_in.get(), m_in.size(), seed);
  }

  void launch(void* stream) override {
    const dim3 block(k_lanes, static_cast<unsigned>(m_shape.block_rows));
    const dim3 grid(static_cast<unsigned>(m_shape.tiles));
    column_kernel<Layout><<<grid, block, 0, static_cast<cudaStream_t>(stream)>>>(m_in.get(), m_out.get());
    BB_CUDA_CALL(cudaGetLastError());
  }

  // poison_output (in_out_problem): every byte 0xff, every float becomes a NaN.

  /// Bit-exact, it is a copy: element (r, c) of tile t comes back at (c, r); checked on the GPU.
  verify_result verify() override {
    const tile_transposed<k_side> want{m_seed};
    return verify_on_device(m_out.get(), m_out.size(), want, [&](std::size_t i, float got) {
      const std::size_t t = i / k_tile_elements, e = i % k_tile_elements;
      return "out tile " + std::to_string(t) + " [" + std::to_string(e / k_side) + "," + std::to_string(e % k_side) +
             "] = " + std::to_string(got) + ", expected " + std::to_string(want.expected(i));
    });
  }

  [[nodiscard]] int smem_access_bytes() const override { return sizeof(float); }

private:
  static constexpr int k_side = Layout::k_side;
  static constexpr std::size_t k_tile_elements = static_cast<std::size_t>(k_side) * k_side;
  shape m_shape;
  std::uint64_t m_seed = 0;
};

/// column_kernel's shared-memory requests, from its own Layout::offset and loop bounds: every
/// tile issues the same ones, so one tile is built and counted `tiles` times.
template <class Layout> model::access_plan shared_access_plan(const nlohmann::json& params) {
  const shape s = checked_shape(params);
  constexpr int k_side = Layout::k_side;
  constexpr auto word = static_cast<std::uint32_t>(sizeof(float));
  const auto tiles = static_cast<std::uint64_t>(s.tiles);
  model::access_plan plan;
  plan.access_bytes = sizeof(float);
  for (int warp = 0; warp < s.block_rows; ++warp) {
    for (int r = warp; r < k_side; r += s.block_rows) {
      model::warp_access store;
      store.kind = model::access_kind::store;
      store.active = active_lanes<Layout>();
      for (int lane = 0; lane < k_side; ++lane)
        store.address[static_cast<std::size_t>(lane)] = static_cast<std::uint32_t>(Layout::offset(r, lane)) * word;
      plan.add(tiles, store);
    }
    for (int c = warp; c < k_side; c += s.block_rows) {
      model::warp_access load;
      load.kind = model::access_kind::load;
      load.active = active_lanes<Layout>();
      for (int lane = 0; lane < k_side; ++lane)
        load.address[static_cast<std::size_t>(lane)] = static_cast<std::uint32_t>(Layout::offset(lane, c)) * word;
      plan.add(tiles, load);
    }
  }
  plan.tile = model::make_tile_layout("float tile", k_side, k_side, sizeof(float), Layout::k_pitch,
                                      [](int r, int c) { return Layout::offset(r, c); });
  return plan;
}

template <class Layout> problem_factory factory() {
  return [](const nlohmann::json& params, std::uint64_t seed) -> std::unique_ptr<problem> {
    return std::make_unique<column_problem<Layout>>(params, seed);
  };
}

} // namespace bb::column_access
