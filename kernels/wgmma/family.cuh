#pragma once
// wgmma family (sm_90a): one warpgroup (128 threads) per block copies a 64 x K f16 tile of A and
// one of B (both K-major) from global into shared memory with 16-byte stores, in one of the four
// canonical wgmma layouts (interleave without swizzle, 32B, 64B, 128B swizzle; kernels/wgmma/
// layout.hpp), then multiplies them with K / 16 wgmma.mma_async m64n64k16 f32 += f16 x f16
// instructions whose operands are both shared-memory descriptors, and writes D = A B^T (64 x 64
// f32) out. The operand reads are the GMMA access kind. Variants differ in the layout; the tile
// count is the one parameter. wgmma exists only for sm_90a: this family's objects build for it
// alone (kernels/CMakeLists.txt) and a device other than compute capability 9.0 is refused.
#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include <cuda_runtime.h>

#include "kernels/common/params.hpp"
#include "kernels/common/device_buffer.cuh"
#include "kernels/common/device_check.cuh"
#include "kernels/common/device_generate.cuh"
#include "kernels/common/host_device.hpp"
#include "kernels/common/uniform.hpp"
#include "runner/launch/cuda_call.hpp"
#include "runner/model/matrix_access.hpp"
#include "runner/registry/registry.hpp"
#include "kernels/wgmma/layout.hpp"
#include "kernels/wgmma/kernel.cuh"

namespace bb::wgmma {

inline constexpr std::int64_t k_max_tiles = 1 << 16;

inline const family_info& family() {
  static const family_info f{
      "wgmma",
      "wgmma m64n64k16 (f32 += f16 x f16) reading both operands from shared memory: interleave, 32B, 64B, 128B swizzle (sm_90a)",
      {{"batch", 2048, "tile pairs (A 64 x K, B 64 x K), one warpgroup-sized block each"}}};
  return f;
}

inline std::int64_t checked_tiles(const nlohmann::json& params) {
  return param::in_range(params, "batch", 1, k_max_tiles);
}

/// The seeded input value i: an integer in [-2, 2], so every product and sum of 64 of them is
/// exact in f16 and f32 and the result has one right answer.
BB_HD inline int value_at(std::uint64_t seed, std::uint64_t i) {
  host::splitmix64 rng{seed * 0x9e3779b97f4a7c15ull + i};
  return static_cast<int>(rng.next() % 5u) - 2;
}

/// The f16 bits of -2, -1, 0, 1, 2.
BB_HD inline std::uint16_t half_bits(int v) {
  constexpr std::uint16_t bits[5] = {0xC000u, 0xBC00u, 0x0000u, 0x3C00u, 0x4000u};
  return bits[v + 2];
}

/// The input buffer: every tile's A (64 rows x K f16, row-major), then every tile's B.
struct half_values {
  std::uint64_t seed;
  BB_HD std::uint16_t operator()(std::uint64_t i) const { return half_bits(value_at(seed, i)); }
};

/// Output element i (tile, row m, column n, row-major): sum over k of A[m][k] * B[n][k].
struct expected_output {
  std::uint64_t seed;
  int k; ///< K
  std::uint64_t tiles;
  BB_HD float expected(std::size_t i) const {
    const std::uint64_t tile = i / k_out_per_tile;
    const int m = static_cast<int>(i / k_rows % k_rows), n = static_cast<int>(i % k_rows);
    const std::uint64_t a = (tile * k_rows + static_cast<std::uint64_t>(m)) * static_cast<std::uint64_t>(k);
    const std::uint64_t b = (tiles * k_rows + tile * k_rows + static_cast<std::uint64_t>(n)) *
                            static_cast<std::uint64_t>(k);
    int sum = 0;
    for (int j = 0; j < k; ++j)
      sum += value_at(seed, a + static_cast<std::uint64_t>(j)) * value_at(seed, b + static_cast<std::uint64_t>(j));
    return static_cast<float>(sum);
  }
  /// Integer inputs make the result exact; the tolerance only keeps the check a float compare.
  /// A NaN (the poison) fails.
  BB_HD bool operator()(std::size_t i, float got) const {
    const float d = got - expected(i);
    return d <= 1e-3f && d >= -1e-3f;
  }
};

/// Refuses a device other than compute capability 9.0: wgmma is sm_90a only.
inline void require_sm90() {
  int device = 0, major = 0, minor = 0;
  BB_CUDA_CALL(cudaGetDevice(&device));
  BB_CUDA_CALL(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  BB_CUDA_CALL(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  if (major != 9 || minor != 0)
    throw unsupported_parameter("wgmma needs compute capability 9.0 (sm_90a); this device is " + std::to_string(major) +
                                "." + std::to_string(minor));
}

template <model::tma_swizzle Mode> class wgmma_problem final : public problem {
public:
  wgmma_problem(std::int64_t tiles, std::uint64_t seed) : m_tiles(tiles), m_seed(seed) {
    require_sm90();
    const std::size_t halves = 2 * static_cast<std::size_t>(tiles) * static_cast<std::size_t>(operand_bytes(Mode) / 2);
    m_in = device_buffer<std::uint16_t>(halves);
    m_out = device_buffer<float>(static_cast<std::size_t>(tiles) * k_out_per_tile);
    generate_device(m_in.get(), halves, half_values{seed});
  }

  void launch(void* stream) override {
    wgmma_kernel<Mode><<<dim3(static_cast<unsigned>(m_tiles)), k_threads, 0, static_cast<cudaStream_t>(stream)>>>(
        reinterpret_cast<const uint4*>(m_in.get()), m_tiles, m_out.get());
    BB_CUDA_CALL(cudaGetLastError());
  }

  void poison_output() override { BB_CUDA_CALL(cudaMemset(m_out.get(), 0xff, m_out.bytes())); }

  /// Against sum_k A[m][k] B[n][k] recomputed on the GPU from the seed (exact: integer inputs).
  verify_result verify() override {
    const expected_output want{m_seed, span_of(Mode) / 2, static_cast<std::uint64_t>(m_tiles)};
    return verify_on_device(m_out.get(), m_out.size(), want, [&](std::size_t i, float got) {
      return "out[" + std::to_string(i / k_out_per_tile) + "][" + std::to_string(i / k_rows % k_rows) + "][" +
             std::to_string(i % k_rows) + "] = " + std::to_string(got) + ", expected " +
             std::to_string(want.expected(i));
    });
  }

  [[nodiscard]] std::uint64_t bytes_moved() const override { return m_in.bytes() + m_out.bytes(); }
  [[nodiscard]] int smem_access_bytes() const override { return 16; }
  [[nodiscard]] std::uint64_t device_bytes() const override { return m_in.bytes() + m_out.bytes(); }

private:
  std::int64_t m_tiles = 0;
  std::uint64_t m_seed = 0;
  device_buffer<std::uint16_t> m_in;
  device_buffer<float> m_out;
};

template <model::tma_swizzle Mode> problem_factory factory() {
  return [](const nlohmann::json& params, std::uint64_t seed) -> std::unique_ptr<problem> {
    return std::make_unique<wgmma_problem<Mode>>(checked_tiles(params), seed);
  };
}

/// The requests of one tile, counted for every tile: the copy's 16-byte stores (A and B), then per
/// wgmma one GMMA request reading A's and B's 64 x 16 slices, 16 + 16 core matrices of 8 rows x
/// 16 bytes. A warp request holds 4 core matrices (one 8-lane phase each, as ldmatrix.x4), so an
/// instruction is 8 of them: the first a request, the other 7 continuing it. Hypothesis: one
/// wavefront per core matrix whose 8 rows fall in 8 distinct 16-byte bank groups (32 per
/// instruction in every canonical layout).
template <model::tma_swizzle Mode> model::access_plan shared_access_plan(const nlohmann::json& params) {
  const auto tiles = static_cast<std::uint64_t>(checked_tiles(params));
  const auto b_base = static_cast<std::uint32_t>(operand_bytes(Mode));
  model::access_plan plan;
  plan.access_bytes = 16;
  for (int first = 0; first < operand_bytes(Mode) / 16; first += k_threads)
    for (int warp = 0; warp < k_threads / 32; ++warp)
      for (const std::uint32_t operand : {0u, b_base}) {
        model::warp_access store;
        store.kind = model::access_kind::store;
        store.width = 16;
        for (int lane = 0; lane < 32; ++lane) {
          const chunk_pos p = copy_chunk(first + 32 * warp + lane, Mode);
          store.address[static_cast<std::size_t>(lane)] = operand + operand_offset(p.row, p.chunk, Mode);
        }
        plan.add(tiles, store);
      }
  // The counters count a GMMA request per warp (an H100 read 4 per wgmma, 8 wavefronts each): warp
  // w's request is stated as its 16 rows of A and a quarter of B, 4 core matrices each (matrix j
  // of a part = row group j / 2, chunk j % 2), which is the 32 core matrices per wgmma in total.
  for (int s = 0; s < steps_of(Mode); ++s)
    for (int part = 0; part < 4; ++part)
      for (const std::uint32_t operand : {0u, b_base}) {
        std::array<std::uint32_t, model::k_warp_lanes> rows{};
        for (int lane = 0; lane < 32; ++lane) {
          const int j = 4 * part + lane / 8;
          rows[static_cast<std::size_t>(lane)] = operand + operand_offset(8 * (j / 2) + lane % 8, 2 * s + j % 2, Mode);
        }
        plan.add(tiles, model::matrix_access(rows, 4, model::access_kind::gmma), operand != 0);
      }
  const int k = span_of(Mode) / 2;
  plan.tile = model::make_tile_layout("f16 A", k_rows, k, 2, k, [](int r, int c) {
    return static_cast<int>((operand_offset(r, c / 8, Mode) + 2u * static_cast<std::uint32_t>(c % 8)) / 2);
  });
  return plan;
}

} // namespace bb::wgmma
