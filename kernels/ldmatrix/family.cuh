#pragma once
// ldmatrix family: one warp per block fills a 32-row tile of 128-byte rows (b16 data) with plain
// stores, then reads it back with ldmatrix.x1/.x2/.x4 (optionally .trans): instruction (g, k)
// gives lane l the address of row g*8N + l, 16-byte chunk k. Variants differ only in the tile's
// layout (where byte b of row r lives): 128-byte rows, rows padded to 144 bytes, or CuTe
// Swizzle<3,4,3> (TMA's 128B swizzle) over 128-byte rows.
#include <cstdint>
#include <memory>
#include <string>

#include <cuda_runtime.h>

#include "kernels/common/params.hpp"
#include "kernels/common/in_out_problem.cuh"
#include "kernels/common/device_buffer.cuh"
#include "kernels/common/device_check.cuh"
#include "kernels/common/device_generate.cuh"
#include "kernels/common/host_device.hpp"
#include "kernels/common/tile_128.hpp"
#include "kernels/common/uniform.hpp"
#include "runner/launch/cuda_call.hpp"
#include "runner/model/matrix_access.hpp"
#include "runner/registry/registry.hpp"
#include "kernels/ldmatrix/kernel.cuh"

namespace bb::ldmatrix {

inline constexpr std::int64_t k_max_tiles = 1 << 18;

inline const family_info& family() {
  static const family_info f{
      "ldmatrix",
      "ldmatrix.x1/.x2/.x4 (and .trans) over a 32 x 128-byte b16 tile: unpadded, padded, Swizzle<3,4,3>",
      {{"matrices", 4, "8x8 b16 matrices per instruction: 1, 2 or 4 (ldmatrix .x1, .x2, .x4)"},
       {"mode", "plain", "plain, or trans for ldmatrix .trans (transposes each matrix; the same addresses)"},
       {"batch", 4096, "tiles, one warp-sized block each"}}};
  return f;
}

struct config {
  int matrices = 4;
  bool trans = false;
  std::int64_t tiles = 0;
  /// Bytes per lane an instruction moves: x1 = 128 B over 32 lanes = 4, x2 = 8, x4 = 16. The fill
  /// stores use the same width, so one ideal (1, 2 or 4 wavefronts) holds for both kinds.
  [[nodiscard]] int lane_bytes() const { return 4 * matrices; }
  [[nodiscard]] int instructions() const { return k_rows * 8 / (8 * matrices); } ///< per tile
};

inline config checked_config(const nlohmann::json& params) {
  config c;
  c.matrices = static_cast<int>(param::one_of(params, "matrices", {1, 2, 4}));
  c.trans = param::one_of(params, "mode", {"plain", "trans"}) == "trans";
  c.tiles = param::in_range(params, "batch", 1, k_max_tiles);
  return c;
}

/// The seeded input word i, the same bits on host and device.
BB_HD inline std::uint32_t word_at(std::uint64_t seed, std::uint64_t i) {
  host::splitmix64 rng{seed * 0x9e3779b97f4a7c15ull + i};
  return static_cast<std::uint32_t>(rng.next() >> 32);
}
struct word_values {
  std::uint64_t seed;
  BB_HD std::uint32_t operator()(std::uint64_t i) const { return word_at(seed, i); }
};

/// b16 value c (0..63) of row r of tile t of the input.
BB_HD inline std::uint32_t half_at(std::uint64_t seed, std::uint64_t tile, int r, int c) {
  const std::uint32_t w = word_at(seed, tile * k_tile_words + static_cast<std::uint64_t>(r) * k_row_words + c / 2);
  return (w >> (16 * (c % 2))) & 0xffffu;
}

/// Output word i: tile, instruction (g, k), register j (matrix j) and lane t. Without .trans lane t
/// holds row t/4, values 2(t%4) and 2(t%4)+1 of the matrix; with .trans, column t/4, rows 2(t%4)
/// and 2(t%4)+1 (PTX ISA, ldmatrix fragments).
struct expected_output {
  std::uint64_t seed;
  int matrices;
  bool trans;
  BB_HD std::uint32_t expected(std::size_t i) const {
    const int t = static_cast<int>(i % 32);
    const int j = static_cast<int>((i / 32) % static_cast<std::size_t>(matrices));
    const std::size_t instr = i / 32 / static_cast<std::size_t>(matrices);
    const int per_tile = k_rows / matrices;
    const std::uint64_t tile = instr / static_cast<std::size_t>(per_tile);
    const int in_tile = static_cast<int>(instr % static_cast<std::size_t>(per_tile));
    const int g = in_tile / 8, k = in_tile % 8;
    const int row0 = g * 8 * matrices + 8 * j; // matrix j's first row
    if (!trans) {
      const int r = row0 + t / 4, c = 8 * k + 2 * (t % 4);
      return half_at(seed, tile, r, c) | (half_at(seed, tile, r, c + 1) << 16);
    }
    const int r = row0 + 2 * (t % 4), c = 8 * k + t / 4;
    return half_at(seed, tile, r, c) | (half_at(seed, tile, r + 1, c) << 16);
  }
  BB_HD bool operator()(std::size_t i, std::uint32_t got) const { return got == expected(i); }
};

/// Enqueues one launch over `tiles` tiles: a kernel instantiation, type-erased.
using word_launcher = void (*)(std::int64_t tiles, cudaStream_t stream, const std::uint32_t* in, std::uint32_t* out);

template <class Kernel>
void launch_tiles(Kernel kernel, std::int64_t tiles, cudaStream_t s, const std::uint32_t* in, std::uint32_t* out) {
  kernel<<<dim3(static_cast<unsigned>(tiles)), 32, 0, s>>>(in, out);
}

template <class Layout, int N, bool Trans>
void launch_ldmatrix(std::int64_t tiles, cudaStream_t s, const std::uint32_t* in, std::uint32_t* out) {
  launch_tiles(ldmatrix_kernel<Layout, N, Trans>, tiles, s, in, out);
}

/// Buffers of seeded words, launch and check shared by the ldmatrix and stmatrix families:
/// Expected gives each output word (a BB_HD expected(i) and operator()(i, got)).
template <class Expected> class word_problem final : public in_out_problem<std::uint32_t> {
public:
  word_problem(std::int64_t tiles, int lane_bytes, Expected want, word_launcher launch, std::uint64_t seed)
      : in_out_problem(static_cast<std::size_t>(tiles) * k_tile_words, static_cast<std::size_t>(tiles) * k_tile_words),
        m_tiles(tiles),
        m_lane_bytes(lane_bytes),
        m_want(want),
        m_launch(launch) {
    generate_device(m_in.get(), m_in.size(), word_values{seed});
  }

  void launch(void* stream) override {
    m_launch(m_tiles, static_cast<cudaStream_t>(stream), m_in.get(), m_out.get());
    BB_CUDA_CALL(cudaGetLastError());
  }

  /// Bit-exact against the PTX fragment layout, checked on the GPU.
  verify_result verify() override { return verify_each(m_want); }

  [[nodiscard]] int smem_access_bytes() const override { return m_lane_bytes; }

private:
  std::int64_t m_tiles = 0;
  int m_lane_bytes = 4;
  Expected m_want;
  word_launcher m_launch;
};

template <class Layout> word_launcher ldmatrix_launcher(const config& c) {
  if (c.matrices == 1) return c.trans ? &launch_ldmatrix<Layout, 1, true> : &launch_ldmatrix<Layout, 1, false>;
  if (c.matrices == 2) return c.trans ? &launch_ldmatrix<Layout, 2, true> : &launch_ldmatrix<Layout, 2, false>;
  return c.trans ? &launch_ldmatrix<Layout, 4, true> : &launch_ldmatrix<Layout, 4, false>;
}

template <class Layout> problem_factory factory() {
  return [](const nlohmann::json& params, std::uint64_t seed) -> std::unique_ptr<problem> {
    const config c = checked_config(params);
    return std::make_unique<word_problem<expected_output>>(c.tiles, c.lane_bytes(),
                                                           expected_output{seed, c.matrices, c.trans},
                                                           ldmatrix_launcher<Layout>(c), seed);
  };
}

/// The plain accesses of a tile in row order, `w` bytes a lane, for every tile: the fill's stores
/// (ldmatrix) or the read-back's loads (stmatrix).
template <class Layout>
void add_row_order(model::access_plan& plan, std::uint64_t tiles, int w, model::access_kind kind) {
  for (int s = 0; s < k_rows * k_row_bytes / (32 * w); ++s) {
    model::warp_access a;
    a.kind = kind;
    a.width = w;
    for (int lane = 0; lane < 32; ++lane) {
      const int byte = (s * 32 + lane) * w;
      a.address[static_cast<std::size_t>(lane)] = static_cast<std::uint32_t>(
          Layout::offset(byte / k_row_bytes, byte % k_row_bytes));
    }
    plan.add(tiles, a);
  }
}

/// The row address each lane gives matrix instruction `in_tile` of a tile (rows g*8N.., chunk k).
template <class Layout> std::array<std::uint32_t, 32> instruction_rows(int in_tile, int matrices) {
  const int g = in_tile / 8, k = in_tile % 8;
  std::array<std::uint32_t, 32> rows{};
  for (int lane = 0; lane < 32; ++lane)
    rows[static_cast<std::size_t>(lane)] = static_cast<std::uint32_t>(
        Layout::offset(g * 8 * matrices + lane % (8 * matrices), 16 * k));
  return rows;
}

/// The b16 tile as the bank map draws it.
template <class Layout> model::tile_layout b16_tile() {
  return model::make_tile_layout("b16 tile", k_rows, k_row_bytes / 2, 2, Layout::k_bytes / k_rows / 2,
                                 [](int r, int col) { return Layout::offset(r, 2 * col) / 2; });
}

/// ldmatrix_kernel's requests from the same Layout::offset: the fill stores and the ldmatrix
/// instructions of one tile, counted for every tile.
template <class Layout> model::access_plan shared_access_plan(const nlohmann::json& params) {
  const config c = checked_config(params);
  const auto tiles = static_cast<std::uint64_t>(c.tiles);
  model::access_plan plan;
  plan.access_bytes = c.lane_bytes();
  add_row_order<Layout>(plan, tiles, c.lane_bytes(), model::access_kind::store);
  for (int in_tile = 0; in_tile < c.instructions(); ++in_tile)
    plan.add(tiles, model::matrix_access(instruction_rows<Layout>(in_tile, c.matrices), c.matrices));
  plan.tile = b16_tile<Layout>();
  return plan;
}

} // namespace bb::ldmatrix
