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

namespace bb::wgmma {

inline constexpr int k_threads = 128; ///< one warpgroup
inline constexpr int k_out_per_tile = k_rows * k_rows;
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

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
/// One wgmma.mma_async m64n64k16 f32 += f16 x f16, A and B from descriptors, both K-major
/// (imm-trans 0), scale-a and scale-b 1; `accumulate` 0 makes D = A B, 1 D += A B.
__device__ inline void mma_m64n64k16(float (&d)[32], std::uint64_t desc_a, std::uint64_t desc_b, int accumulate) {
  asm volatile("{\n"
               ".reg .pred p;\n"
               "setp.ne.b32 p, %34, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
               "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
               "%32, %33, p, 1, 1, 0, 0;\n"
               "}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                 "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                 "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                 "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
               : "l"(desc_a), "l"(desc_b), "r"(accumulate)
               : "memory");
}
#endif

/// One block (a warpgroup) per tile pair: the copy into the layout, the K / 16 wgmma, D out.
/// `in`: every tile's A then every tile's B, each operand 64 rows of span bytes (16-byte chunks).
template <model::tma_swizzle Mode> __global__ void __launch_bounds__(k_threads)
    wgmma_kernel(const uint4* __restrict__ in, std::int64_t tiles, float* __restrict__ out) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  constexpr int k_bytes = operand_bytes(Mode);
  constexpr int k_chunks = k_bytes / 16; // per operand
  constexpr int k_per_row = span_of(Mode) / 16;
  // A at 0, B at k_bytes (a multiple of 1024): both at a swizzle pattern's start, base offset 0.
  // The hardware swizzles address bits, so the tile must sit at a 1024-byte boundary: the PTX
  // declares it .align 1024.
  __shared__ __align__(1024) unsigned char tile[2 * k_bytes];
  const int t = static_cast<int>(threadIdx.x);
  const auto block = static_cast<std::size_t>(blockIdx.x);
  const uint4* a = in + block * k_chunks;
  const uint4* b = in + (static_cast<std::size_t>(tiles) + block) * k_chunks;
#pragma unroll
  for (int first = 0; first < k_chunks; first += k_threads) { // 1, 2 or 4 steps
    const chunk_pos p = copy_chunk(first + t, Mode);
    const std::uint32_t at = operand_offset(p.row, p.chunk, Mode);
    *reinterpret_cast<uint4*>(tile + at) = a[p.row * k_per_row + p.chunk];
    *reinterpret_cast<uint4*>(tile + k_bytes + at) = b[p.row * k_per_row + p.chunk];
  }
  // The generic-proxy stores become visible to wgmma's async-proxy reads, then to every warp.
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  const auto base = static_cast<std::uint32_t>(__cvta_generic_to_shared(tile));
  float d[32];
#pragma unroll
  for (int r = 0; r < 32; ++r) d[r] = 0.0f;
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
  for (int s = 0; s < steps_of(Mode); ++s) // K step s: 16 elements = 32 bytes further along every row
    mma_m64n64k16(d, descriptor(base + 32u * static_cast<std::uint32_t>(s), Mode),
                  descriptor(base + static_cast<std::uint32_t>(k_bytes) + 32u * static_cast<std::uint32_t>(s), Mode),
                  s == 0 ? 0 : 1);
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
#pragma unroll
  for (int r = 0; r < 32; ++r) asm volatile("" : "+f"(d[r])::"memory"); // no read of D before the wait
  float* o = out + block * k_out_per_tile;
#pragma unroll
  for (int r = 0; r < 32; ++r) {
    const cell c = accumulator_at(t, r);
    o[c.row * k_rows + c.col] = d[r];
  }
#else
  // Any other target (there is none in this build) has no wgmma: the factory refuses the device.
  (void)in;
  (void)tiles;
  (void)out;
#endif
}

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
