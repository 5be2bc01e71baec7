#pragma once
// The wgmma family's device code: wgmma_kernel and the constants and wgmma call it uses (layouts in
// kernels/wgmma/layout.hpp), with no host-only headers, so its code twin (bench/code_twins/wgmma.yaml)
// compiles it alone.
#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "runner/model/matrix_access.hpp"
#include "kernels/wgmma/layout.hpp"

namespace bb::wgmma {

inline constexpr int k_threads = 128; ///< one warpgroup
inline constexpr int k_out_per_tile = k_rows * k_rows;

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

} // namespace bb::wgmma
