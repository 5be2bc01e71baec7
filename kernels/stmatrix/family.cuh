#pragma once
// stmatrix family (sm_90): one warp per block writes a 32 x 128-byte b16 tile with stmatrix
// .x1/.x2/.x4 from registers loaded in fragment order, then reads it back with plain loads of
// 4 x matrices bytes per lane in row order. Instruction (g, k) stores matrix j's row i from lane
// 8j + i's address: row g*8N + 8j + i, 16-byte chunk k. Layouts as the ldmatrix family's.
#include "kernels/common/params.hpp"
#include "kernels/ldmatrix/family.cuh"
#include "kernels/stmatrix/kernel.cuh"

namespace bb::stmatrix {

inline const family_info& family() {
  static const family_info f{
      "stmatrix",
      "stmatrix.x1/.x2/.x4 into a 32 x 128-byte b16 tile: unpadded, padded, Swizzle<3,4,3> (sm_90)",
      {{"matrices", 4, "8x8 b16 matrices per instruction: 1, 2 or 4 (stmatrix .x1, .x2, .x4)"},
       {"batch", 4096, "tiles, one warp-sized block each"}}};
  return f;
}

struct config {
  int matrices = 4;
  std::int64_t tiles = 0;
  [[nodiscard]] int lane_bytes() const { return 4 * matrices; }
};

inline config checked_config(const nlohmann::json& params) {
  config c;
  c.matrices = static_cast<int>(param::one_of(params, "matrices", {1, 2, 4}));
  c.tiles = param::in_range(params, "batch", 1, ldmatrix::k_max_tiles);
  return c;
}

/// Output word (row r, word w) of a tile: lane t = 4(r mod 8) + w mod 4 of instruction
/// (g = r / 8N, k = w / 4) stored it from register j = (r mod 8N) / 8, which it loaded from input
/// word ((tile * 32/N + 8g + k) * N + j) * 32 + t (PTX ISA, stmatrix fragments).
struct expected_output {
  std::uint64_t seed;
  int matrices;
  BB_HD std::uint32_t expected(std::size_t i) const {
    const std::size_t tile = i / k_tile_words;
    const int r = static_cast<int>(i % k_tile_words) / (k_row_bytes / 4), w = static_cast<int>(i % (k_row_bytes / 4));
    const int g = r / (8 * matrices), j = (r % (8 * matrices)) / 8, t = 4 * (r % 8) + w % 4, k = w / 4;
    const std::size_t instr = tile * static_cast<std::size_t>(k_rows / matrices) + static_cast<std::size_t>(8 * g + k);
    return ldmatrix::word_at(seed, (instr * static_cast<std::size_t>(matrices) + static_cast<std::size_t>(j)) * 32 +
                                       static_cast<std::size_t>(t));
  }
  BB_HD bool operator()(std::size_t i, std::uint32_t got) const { return got == expected(i); }
};

template <class Layout, int N>
void launch_stmatrix(std::int64_t tiles, cudaStream_t s, const std::uint32_t* in, std::uint32_t* out) {
  ldmatrix::launch_tiles(stmatrix_kernel<Layout, N>, tiles, s, in, out);
}

template <class Layout> problem_factory factory() {
  return [](const nlohmann::json& params, std::uint64_t seed) -> std::unique_ptr<problem> {
    const config c = checked_config(params);
    const ldmatrix::word_launcher launch = c.matrices == 1   ? &launch_stmatrix<Layout, 1>
                                           : c.matrices == 2 ? &launch_stmatrix<Layout, 2>
                                                             : &launch_stmatrix<Layout, 4>;
    return std::make_unique<ldmatrix::word_problem<expected_output>>(c.tiles, c.lane_bytes(),
                                                                     expected_output{seed, c.matrices}, launch, seed);
  };
}

/// stmatrix_kernel's requests: the stmatrix instructions and the read-back loads of one tile.
template <class Layout> model::access_plan shared_access_plan(const nlohmann::json& params) {
  const config c = checked_config(params);
  const auto tiles = static_cast<std::uint64_t>(c.tiles);
  model::access_plan plan;
  plan.access_bytes = c.lane_bytes();
  for (int in_tile = 0; in_tile < k_rows / c.matrices; ++in_tile)
    plan.add(tiles, model::matrix_access(ldmatrix::instruction_rows<Layout>(in_tile, c.matrices), c.matrices,
                                         model::access_kind::stsm));
  ldmatrix::add_row_order<Layout>(plan, tiles, c.lane_bytes(), model::access_kind::load);
  plan.tile = ldmatrix::b16_tile<Layout>();
  return plan;
}

} // namespace bb::stmatrix
