// wgmma.mma_async m64n64k16 (f32 += f16 x f16) with A from registers and B from shared memory
// through a 128B-swizzled K-major descriptor: a 64 x 64 A, a 64 x 64 B, four K steps, D = A B^T.
// Each thread holds its part of A's 64 x 16 slice in four registers, as the PTX ISA's wgmma A
// fragment gives them: warp w rows 16w .. 16w + 15; register i of lane l holds row
// 16w + l / 4 + 8 (i % 2), columns 2 (l % 4) + 8 (i / 2) and the next. `naive` computes the same
// product with plain loads, for the check. Built for sm_90a.
#include <cstdint>

#include <cuda_fp16.h>

// 16-byte chunk c of row r of a 128-byte-row operand sits at chunk c ^ (r % 8): the 128B swizzle.
__device__ inline unsigned swizzled(unsigned row, unsigned chunk) { return row * 128 + ((chunk ^ (row % 8)) * 16); }

// Descriptor: start >> 4, leading byte offset 16 (unused by swizzled K-major), stride 1024 (8 rows
// of 128 bytes) >> 4, layout 1 (128B swizzle).
__device__ inline std::uint64_t descriptor(unsigned address) {
  return static_cast<std::uint64_t>((address & 0x3FFFF) >> 4) | std::uint64_t{16 >> 4} << 16 |
         std::uint64_t{1024 >> 4} << 32 | std::uint64_t{1} << 62;
}

__device__ inline void mma_rs(float* d, const std::uint32_t (&a)[4], std::uint64_t b, int accumulate) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
               "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
               "{%32, %33, %34, %35}, %36, p, 1, 1, 0;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                 "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                 "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                 "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate)
               : "memory");
}

__global__ void __launch_bounds__(128) gemm_rs(const uint4* a, const uint4* b, float* d) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __shared__ __align__(1024) unsigned char sb[64 * 128];
  const unsigned t = threadIdx.x, warp = t / 32, lane = t % 32;
  for (unsigned i = t; i < 64 * 8; i += 128) *reinterpret_cast<uint4*>(sb + swizzled(i / 8, i % 8)) = b[i];
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  const auto* pairs = reinterpret_cast<const std::uint32_t*>(a); // A row-major, 32 pairs of halves a row
  float acc[32];
  for (int i = 0; i < 32; ++i) acc[i] = 0.0f;
  const auto base_b = static_cast<unsigned>(__cvta_generic_to_shared(sb));
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
  for (int s = 0; s < 4; ++s) {
    std::uint32_t frag[4];
    for (unsigned i = 0; i < 4; ++i) {
      const unsigned row = 16 * warp + lane / 4 + 8 * (i % 2), col = 16 * s + 2 * (lane % 4) + 8 * (i / 2);
      frag[i] = pairs[(row * 64 + col) / 2];
    }
    mma_rs(acc, frag, descriptor(base_b + 32 * s), s);
  }
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  for (int i = 0; i < 32; ++i) { // the f32 accumulator fragment: warp w holds rows 16w .. 16w + 15
    const unsigned row = 16 * warp + lane / 4 + 8 * ((i / 2) % 2), col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
    d[row * 64 + col] = acc[i];
  }
#endif
}

__global__ void naive(const uint4* a, const uint4* b, float* d) {
  const auto* ha = reinterpret_cast<const __half*>(a);
  const auto* hb = reinterpret_cast<const __half*>(b);
  for (unsigned i = threadIdx.x; i < 64 * 64; i += blockDim.x) {
    const unsigned row = i / 64, col = i % 64;
    float sum = 0.0f;
    for (int k = 0; k < 64; ++k) sum += __half2float(ha[row * 64 + k]) * __half2float(hb[col * 64 + k]);
    d[i] = sum;
  }
}
