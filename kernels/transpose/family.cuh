#pragma once
// Transpose family: out = in^T for an n x n float matrix, through one shared-memory tile per
// block. Variants differ only in the tile layout (where element (row, col) of the tile lives).
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "common/device_buffer.cuh"
#include "common/host_parallel.hpp"
#include "launch/cuda_call.hpp"
#include "registry/registry.hpp"

namespace bb::transpose {

inline constexpr int k_tile = 32;      // tile side, in elements
inline constexpr int k_block_rows = 8; // block is (32, 8); each thread moves 4 rows of the tile

inline const family_info& family() {
  static const family_info f{
      "transpose",
      "n x n float matrix transpose through a 32x32 shared-memory tile, block (32, 8)",
      {{"n", 1024, "matrix side, in elements (any positive size; edges are bounds-checked)"}}};
  return f;
}

/// The shared body: rows of the tile are written from coalesced global reads, then columns of
/// the tile are read for coalesced global writes; Layout decides which banks those columns hit.
template <class Layout>
__global__ void __launch_bounds__(k_tile* k_block_rows)
    transpose_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[Layout::k_words];
  const int tx = static_cast<int>(threadIdx.x);
  const int ty = static_cast<int>(threadIdx.y);
  int x = static_cast<int>(blockIdx.x) * k_tile + tx;
  int y = static_cast<int>(blockIdx.y) * k_tile + ty;
  for (int j = 0; j < k_tile; j += k_block_rows)
    if (x < n && y + j < n)
      tile[Layout::offset(ty + j, tx)] = in[static_cast<std::size_t>(y + j) * n + x];
  __syncthreads();
  x = static_cast<int>(blockIdx.y) * k_tile + tx;
  y = static_cast<int>(blockIdx.x) * k_tile + ty;
  for (int j = 0; j < k_tile; j += k_block_rows)
    if (x < n && y + j < n)
      out[static_cast<std::size_t>(y + j) * n + x] = tile[Layout::offset(tx, ty + j)];
}

/// The matrix side of a configuration; unsupported_parameter where the kernel cannot index it.
inline int checked_n(const nlohmann::json& params) {
  const auto n = params.at("n").get<std::int64_t>();
  if (n <= 0 || n > 46340) // n*n must fit the kernel's int indexing of one row offset
    throw unsupported_parameter("n = " + std::to_string(n) + " is outside 1..46340");
  return static_cast<int>(n);
}

/// Sizes, seeded inputs, launch and the CPU check shared by every transpose variant.
template <class Layout> class transpose_problem final : public problem {
public:
  transpose_problem(const nlohmann::json& params, std::uint64_t seed) {
    m_n = checked_n(params);
    const std::size_t count = static_cast<std::size_t>(m_n) * m_n;
    m_host_in.resize(count);
    host::fill_uniform(m_host_in, seed);
    m_in = device_buffer<float>(count);
    m_out = device_buffer<float>(count);
    BB_CUDA_CALL(cudaMemcpy(m_in.get(), m_host_in.data(), m_in.bytes(), cudaMemcpyHostToDevice));
  }

  void launch(void* stream) override {
    const dim3 block(k_tile, k_block_rows);
    const dim3 grid((m_n + k_tile - 1) / k_tile, (m_n + k_tile - 1) / k_tile);
    transpose_kernel<Layout><<<grid, block, 0, static_cast<cudaStream_t>(stream)>>>(m_in.get(), m_out.get(), m_n);
    BB_CUDA_CALL(cudaGetLastError());
  }

  void poison_output() override {
    BB_CUDA_CALL(cudaMemset(m_out.get(), 0xff, m_out.bytes())); // every float becomes a NaN
  }

  verify_result verify() override {
    std::vector<float> got(m_out.size());
    BB_CUDA_CALL(cudaMemcpy(got.data(), m_out.get(), m_out.bytes(), cudaMemcpyDeviceToHost));
    // Rows in bands of 32, so the strided reads of the input stay in cache; bit-exact, it is a copy.
    constexpr std::size_t k_band = 32;
    const std::size_t n = static_cast<std::size_t>(m_n);
    std::vector<std::uint64_t> bad((n + k_band - 1) / k_band, 0);
    std::vector<std::size_t> first(bad.size(), SIZE_MAX);
    host::parallel_chunks(n, k_band, [&](std::size_t row0, std::size_t row1) {
      const std::size_t band = row0 / k_band;
      for (std::size_t col = 0; col < n; ++col)
        for (std::size_t row = row0; row < row1; ++row) {
          if (std::memcmp(&m_host_in[col * n + row], &got[row * n + col], sizeof(float)) == 0) continue;
          ++bad[band];
          first[band] = std::min(first[band], row * n + col);
        }
    });
    verify_result r;
    r.checked = got.size();
    for (std::size_t b = 0; b < bad.size(); ++b) {
      r.mismatches += bad[b];
      if (bad[b] != 0 && r.first_mismatch.empty()) {
        const std::size_t row = first[b] / n, col = first[b] % n;
        r.first_mismatch = "out[" + std::to_string(row) + "," + std::to_string(col) + "] = " +
                           std::to_string(got[first[b]]) + ", expected " +
                           std::to_string(m_host_in[col * n + row]);
      }
    }
    r.ok = r.mismatches == 0;
    return r;
  }

  [[nodiscard]] std::uint64_t bytes_moved() const override { return 2ull * m_in.bytes(); }
  [[nodiscard]] int smem_access_bytes() const override { return sizeof(float); }
  [[nodiscard]] std::uint64_t device_bytes() const override { return m_in.bytes() + m_out.bytes(); }

private:
  int m_n = 0;
  std::vector<float> m_host_in;
  device_buffer<float> m_in;
  device_buffer<float> m_out;
};

/// transpose_kernel's shared-memory requests for the bank model, from its own Layout::offset and
/// bounds checks: warp ty of a block holds lanes tx = 0..31. A tile's requests depend only on how
/// far the matrix reaches into it (32 elements, or n mod 32 at the last tile of a row or column),
/// so each pair of extents is built once and counted for every tile that has it.
template <class Layout> model::access_plan shared_access_plan(const nlohmann::json& params) {
  const int n = checked_n(params);
  struct extent {
    int size;           // elements of the matrix inside the tile along one axis
    std::uint64_t tiles; // tiles along that axis with this extent
  };
  std::vector<extent> extents;
  if (n >= k_tile) extents.push_back({k_tile, static_cast<std::uint64_t>(n / k_tile)});
  if (n % k_tile != 0) extents.push_back({n % k_tile, 1});
  constexpr auto word = static_cast<std::uint32_t>(sizeof(float));
  model::access_plan plan;
  plan.access_bytes = sizeof(float);
  for (const extent& ex : extents)   // along blockIdx.x
    for (const extent& ey : extents) // along blockIdx.y
      for (int ty = 0; ty < k_block_rows; ++ty)
        for (int j = 0; j < k_tile; j += k_block_rows) {
          model::warp_access store, load;
          store.kind = model::access_kind::store;
          load.kind = model::access_kind::load;
          store.active = load.active = 0;
          for (int tx = 0; tx < k_tile; ++tx) {
            // Store phase: x = bx*32 + tx and y = by*32 + ty + j must be inside the matrix.
            store.address[tx] = static_cast<std::uint32_t>(Layout::offset(ty + j, tx)) * word;
            if (tx < ex.size && ty + j < ey.size) store.active |= 1u << tx;
            // Load phase: x = by*32 + tx and y = bx*32 + ty + j.
            load.address[tx] = static_cast<std::uint32_t>(Layout::offset(tx, ty + j)) * word;
            if (tx < ey.size && ty + j < ex.size) load.active |= 1u << tx;
          }
          plan.add(ex.tiles * ey.tiles, store);
          plan.add(ex.tiles * ey.tiles, load);
        }
  model::tile_layout tile;
  tile.rows = tile.cols = k_tile;
  tile.element_bytes = sizeof(float);
  tile.row_pitch_elements = Layout::k_words / k_tile;
  tile.name = "float tile[" + std::to_string(k_tile) + "][" + std::to_string(tile.row_pitch_elements) + "]";
  for (int r = 0; r < k_tile; ++r)
    for (int c = 0; c < k_tile; ++c) tile.address.push_back(static_cast<std::uint32_t>(Layout::offset(r, c)) * word);
  plan.tile = std::move(tile);
  return plan;
}

template <class Layout> problem_factory factory() {
  return [](const nlohmann::json& params, std::uint64_t seed) -> std::unique_ptr<problem> {
    return std::make_unique<transpose_problem<Layout>>(params, seed);
  };
}

} // namespace bb::transpose
