#pragma once
// Convolution family: a 3x3 stencil (binomial blur, zero outside the image) over an n x n float
// image. Each block of (32, 8) threads computes a 32 x 32 output tile from a 34 x 34 halo tile in
// shared memory; variants differ only in the tile's row pitch (34 or 35 words). The thread
// mapping is a parameter: `walk: rows` gives lane = output column (the usual mapping: only the
// halo's side columns are stored down a column), `walk: columns` gives lane = output row, so every
// tap reads down a column of the tile, where an even pitch puts two rows in each bank.
#include <algorithm>
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
#include "kernels/common/uniform.hpp"
#include "kernels/convolution/kernel.cuh"
#include "kernels/convolution/stencil.hpp"
#include "runner/launch/cuda_call.hpp"
#include "runner/registry/registry.hpp"

namespace bb::convolution {

inline const family_info& family() {
  static const family_info f{
      "convolution",
      "3x3 stencil over an n x n float image through a 34 x 34 halo tile per 32 x 32 outputs",
      {{"n", 4096, "image side, in pixels (any positive size; edges are zero-padded)"},
       {"walk", "rows",
        "thread mapping of the stencil phase: rows (lane = output column) or columns (lane = output row)"}}};
  return f;
}

struct shape {
  int n = 0;
  bool column_walk = false;
  [[nodiscard]] int tiles() const { return (n + k_tile - 1) / k_tile; }
};

/// The pixels of an n x n image.
inline std::size_t pixels(const shape& s) { return static_cast<std::size_t>(s.n) * static_cast<std::size_t>(s.n); }

inline shape checked_shape(const nlohmann::json& params) {
  shape s;
  s.n = static_cast<int>(param::in_range(params, "n", 1, 46340)); // n*n must fit the kernel's int pixel index
  s.column_walk = param::one_of(params, "walk", {"rows", "columns"}) == "columns";
  return s;
}

/// Output pixel i = y * n + x: reference_pixel_of over in[i] = uniform_at(seed, i), on host or device.
struct stencil_check {
  std::uint64_t seed;
  int n;
  BB_HD float expected(std::size_t i) const {
    const auto row = static_cast<std::size_t>(n);
    auto input = [&](int yy, int xx) { return host::uniform_at(seed, static_cast<std::size_t>(yy) * row + xx); };
    return reference_pixel_of(input, n, static_cast<int>(i / row), static_cast<int>(i % row));
  }
  BB_HD bool operator()(std::size_t i, float got) const { return same_bytes(got, expected(i)); }
};

template <class Layout> class stencil_problem final : public in_out_problem<float> {
public:
  stencil_problem(const nlohmann::json& params, std::uint64_t seed) : stencil_problem(checked_shape(params), seed) {}
  stencil_problem(const shape& s, std::uint64_t seed) : in_out_problem(pixels(s), pixels(s)), m_shape(s), m_seed(seed) {
    fill_uniform_device(m_in.get(), m_in.size(), seed);
  }

  void launch(void* stream) override {
    const dim3 block(k_tile, k_block_rows);
    const dim3 grid(m_shape.tiles(), m_shape.tiles());
    const auto s = static_cast<cudaStream_t>(stream);
    if (m_shape.column_walk)
      stencil_kernel<Layout, true><<<grid, block, 0, s>>>(m_in.get(), m_out.get(), m_shape.n);
    else
      stencil_kernel<Layout, false><<<grid, block, 0, s>>>(m_in.get(), m_out.get(), m_shape.n);
    BB_CUDA_CALL(cudaGetLastError());
  }

  // poison_output (in_out_problem): every byte 0xff, every float becomes a NaN.

  /// Bit-exact, on the GPU: every output pixel against reference_pixel_of (the kernel's order of
  /// operations) over inputs regenerated from the seed.
  verify_result verify() override {
    const stencil_check want{m_seed, m_shape.n};
    const auto row = static_cast<std::size_t>(m_shape.n);
    return verify_on_device(m_out.get(), m_out.size(), want, [&](std::size_t i, float got) {
      return "out[" + std::to_string(i / row) + "," + std::to_string(i % row) + "] = " + std::to_string(got) +
             ", expected " + std::to_string(want.expected(i));
    });
  }

  [[nodiscard]] int smem_access_bytes() const override { return sizeof(float); }

private:
  shape m_shape;
  std::uint64_t m_seed = 0;
};

/// stencil_kernel's shared requests, from load_cell, output_cell and Layout::offset. The tile
/// stores are the same in every block. The taps' loads are not: nvcc (13.0, sm_90) moves them
/// under the output's bounds check, so a lane whose output lies outside the image takes no part
/// and a warp with no output inside issues none. Walking columns it keeps the first output pass's
/// loads ahead of the check, for every lane of every warp. An H200 counted, at n = 100, 3600 load
/// requests walking rows and 3744 walking columns (16 x 288 for whole tiles); at n = 1, 9 and 72.
/// Blocks differ only in how many of their 32 output rows and columns lie inside: 32, or the last
/// tile row's and column's share.
template <class Layout> model::access_plan stencil_access_plan(const nlohmann::json& params) {
  const shape sh = checked_shape(params);
  const int tiles = sh.tiles();
  const auto blocks = static_cast<std::uint64_t>(tiles) * tiles;
  const int edge = sh.n - (tiles - 1) * k_tile; // outputs inside the last tile row or column: 1..32
  const auto inner = static_cast<std::uint64_t>(tiles - 1);
  struct block_kind {
    int rows, cols; // output rows and columns inside the image
    std::uint64_t count;
  };
  std::vector<block_kind> kinds{{k_tile, k_tile, blocks}};
  if (edge != k_tile)
    kinds = {{k_tile, k_tile, inner * inner}, {k_tile, edge, inner}, {edge, k_tile, inner}, {edge, edge, 1}};
  constexpr auto word = static_cast<std::uint32_t>(sizeof(float));
  model::access_plan plan;
  plan.access_bytes = sizeof(float);
  for (int ty = 0; ty < k_block_rows; ++ty) {
    for (int pass = 0; pass < k_load_passes; ++pass) {
      model::warp_access store;
      store.kind = model::access_kind::store;
      store.active = 0;
      for (int tx = 0; tx < 32; ++tx) {
        const cell c = load_cell(pass, tx, ty);
        if (c.row < 0) continue;
        store.address[tx] = static_cast<std::uint32_t>(Layout::offset(c.row, c.col)) * word;
        store.active |= 1u << tx;
      }
      plan.add(blocks, store);
    }
    for (const auto& kind : kinds)
      for (int j = 0; j < k_tile / k_block_rows; ++j)
        for (int dy = 0; dy < 3; ++dy)
          for (int dx = 0; dx < 3; ++dx) {
            model::warp_access load;
            load.kind = model::access_kind::load;
            load.active = 0;
            const bool ahead_of_check = sh.column_walk && j == 0;
            for (int tx = 0; tx < 32; ++tx) {
              const cell o = output_cell(j, tx, ty, sh.column_walk);
              load.address[tx] = static_cast<std::uint32_t>(Layout::offset(o.row + dy, o.col + dx)) * word;
              if (ahead_of_check || (o.row < kind.rows && o.col < kind.cols)) load.active |= 1u << tx;
            }
            plan.add(kind.count, load); // adds nothing for a warp with no output inside
          }
  }
  plan.tile = model::make_tile_layout("float tile", k_halo, k_halo, sizeof(float), Layout::k_pitch,
                                      [](int r, int c) { return Layout::offset(r, c); });
  return plan;
}

template <class Layout> problem_factory factory() {
  return [](const nlohmann::json& params, std::uint64_t seed) -> std::unique_ptr<problem> {
    return std::make_unique<stencil_problem<Layout>>(params, seed);
  };
}

} // namespace bb::convolution
