#pragma once
// cp.async family: one warp per block copies a 32 x 128-byte float tile from global into shared
// memory with cp.async (LDGSTS, 16 bytes per lane, .ca or .cg), waits, and copies it back out with
// 16-byte loads in row order. Variants differ in which chunk each lane copies (a row's 8 chunks per
// quarter-warp, or lane = row) and in the tile's layout: 128-byte rows, 144-byte rows, or CuTe
// Swizzle<3,4,3>; scatter reads row-wise and stores lane = row. The shared-side wavefronts are at
// least one per global line a cp.async reads, and at least what its destinations cost as a store.
#include <cstdint>
#include <memory>
#include <string>

#include <cuda_runtime.h>

#include "kernels/common/params.hpp"
#include "kernels/common/in_out_problem.cuh"
#include "kernels/common/device_buffer.cuh"
#include "kernels/common/device_check.cuh"
#include "kernels/common/device_fill.cuh"
#include "kernels/common/copied_input.hpp"
#include "kernels/common/host_device.hpp"
#include "kernels/common/tile_128.hpp"
#include "runner/launch/cuda_call.hpp"
#include "runner/model/matrix_access.hpp"
#include "runner/registry/registry.hpp"
#include "kernels/cp_async/kernel.cuh"

namespace bb::cp_async {

inline constexpr std::int64_t k_max_tiles = 1 << 18;

inline const family_info& family() {
  static const family_info f{
      "cp_async",
      "cp.async (.ca/.cg, 16 B) fills of a 32 x 128-byte tile: row-wise, lane = row over 128-byte, "
      "144-byte and Swizzle<3,4,3> rows, and coalesced reads scattered lane = row",
      {{"cache", "cg", "cp.async cache operator: ca (L1 and L2) or cg (L2 only)"},
       {"batch", 4096, "tiles, one warp-sized block each"}}};
  return f;
}

struct config {
  bool cg = true;
  std::int64_t tiles = 0;
};

inline config checked_config(const nlohmann::json& params) {
  config c;
  c.cg = param::one_of(params, "cache", {"ca", "cg"}) == "cg";
  c.tiles = param::in_range(params, "batch", 1, k_max_tiles);
  return c;
}

template <class Layout, order O> class cp_async_problem final : public in_out_problem<float> {
public:
  cp_async_problem(const config& c, std::uint64_t seed)
      : in_out_problem(static_cast<std::size_t>(c.tiles) * k_tile_floats,
                       static_cast<std::size_t>(c.tiles) * k_tile_floats),
        m_config(c),
        m_seed(seed) {
    fill_uniform_device(m_in.get(), m_in.size(), seed);
  }

  void launch(void* stream) override {
    const auto s = static_cast<cudaStream_t>(stream);
    const dim3 grid(static_cast<unsigned>(m_config.tiles));
    if (m_config.cg)
      cp_async_kernel<Layout, O, true><<<grid, 32, 0, s>>>(m_in.get(), m_out.get());
    else
      cp_async_kernel<Layout, O, false><<<grid, 32, 0, s>>>(m_in.get(), m_out.get());
    BB_CUDA_CALL(cudaGetLastError());
  }

  /// Bit-exact copy, checked on the GPU.
  verify_result verify() override { return verify_each(copied_input{m_seed}); }

  [[nodiscard]] int smem_access_bytes() const override { return 16; }

private:
  config m_config;
  std::uint64_t m_seed = 0;
};

template <class Layout, order O> problem_factory factory() {
  return [](const nlohmann::json& params, std::uint64_t seed) -> std::unique_ptr<problem> {
    return std::make_unique<cp_async_problem<Layout, O>>(checked_config(params), seed);
  };
}

/// The kernel's requests: 8 cp.async (LDGSTS, 16 bytes per lane) and 8 LDS.128 read-backs per tile;
/// each cp.async also names the global lines it reads.
template <class Layout, order O> model::access_plan shared_access_plan(const nlohmann::json& params) {
  const auto config = checked_config(params);
  const auto tiles = static_cast<std::uint64_t>(config.tiles);
  model::access_plan plan;
  plan.access_bytes = 16;
  for (int s = 0; s < k_steps; ++s) {
    model::warp_access copy, load;
    copy.kind = model::access_kind::ldgsts;
    copy.l1_bypass = config.cg;
    copy.width = load.width = 16;
    std::uint32_t lines = 0; // bit r: global row r, one 128-byte line each
    for (int lane = 0; lane < 32; ++lane) {
      const auto l = static_cast<std::size_t>(lane);
      const chunk_at src = source_of<O>(s, lane), dst = place_of<O>(src);
      copy.address[l] = static_cast<std::uint32_t>(Layout::offset(dst.row, 16 * dst.chunk));
      lines |= 1u << src.row;
      const int q = s * 32 + lane;
      const chunk_at at = place_of<O>({q / k_chunks, q % k_chunks});
      load.address[l] = static_cast<std::uint32_t>(Layout::offset(at.row, 16 * at.chunk));
    }
    copy.source_lines = __builtin_popcount(lines);
    plan.add(tiles, copy);
    plan.add(tiles, load);
  }
  plan.tile = model::make_tile_layout("float tile", k_rows, k_row_bytes / 4, 4, Layout::k_bytes / k_rows / 4,
                                      [](int r, int c) { return Layout::offset(r, 4 * c) / 4; });
  return plan;
}

} // namespace bb::cp_async
