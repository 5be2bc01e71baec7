// wgmma.mma_async m64n64k16 (f32 += f16 x f16) with MN-major operands (imm-trans 1): a 64 x 64 A and
// a 64 x 64 B, four K steps, D = A B^T, in the PTX ISA's canonical MN-major layouts. In bytes, for
// element (mn, k) of a 2-byte type (8 elements a 16-byte chunk):
//   interleave: (mn % 8) 2 + (k % 8) 16 + (mn / 8) SBO + (k / 8) LBO    (a core matrix: 8 k x 16 B)
//   64B, 128B:  (mn % S) 2 + (k % 8) 2S + (mn / S) LBO + (k / 8) SBO    (S = 32, 64 elements a row),
//               then the swizzle: address bits [4, 4 + b) XOR [7, 7 + b), b = 2, 3
// Layout L: 0 B MN-major 128B (A K-major 128B), 1 B MN-major interleave (A K-major 128B), 2 both
// MN-major 128B, 3 both MN-major 64B. `naive` computes the same product with plain loads, for the
// check. Built for sm_90a.
#include <cstdint>

#include <cuda_fp16.h>

template <int Bits> __device__ inline unsigned swizzle(unsigned address) {
  return address ^ ((address >> 7 & ((1u << Bits) - 1)) << 4);
}

// The byte offset of element (mn, k) of an MN-major operand in layout L (0, 1: B's; 2, 3: both).
template <int L> __device__ inline unsigned mn_offset(unsigned mn, unsigned k) {
  if constexpr (L == 1) return (mn % 8) * 2 + (k % 8) * 16 + (mn / 8) * 128 + (k / 8) * 1024;
  if constexpr (L == 3) return (mn % 32) * 2 + (k % 8) * 64 + (mn / 32) * 512 + (k / 8) * 1024;
  return (mn % 64) * 2 + (k % 8) * 128 + (k / 8) * 1024; // 0, 2: one 128-byte row of MN per k
}
template <int L> __device__ inline unsigned mn_swizzled(unsigned base, unsigned mn, unsigned k) {
  const unsigned address = base + mn_offset<L>(mn, k);
  return L == 1 ? address : L == 3 ? swizzle<2>(address) : swizzle<3>(address);
}

// Descriptors: start >> 4, LBO >> 4 at bit 16, SBO >> 4 at bit 32, layout at bit 62 (0 interleave,
// 1 128B, 2 64B).
__device__ inline std::uint64_t descriptor(unsigned address, unsigned lbo, unsigned sbo, unsigned layout) {
  return static_cast<std::uint64_t>((address & 0x3FFFF) >> 4) | std::uint64_t{lbo >> 4} << 16 |
         std::uint64_t{sbo >> 4} << 32 | std::uint64_t{layout} << 62;
}
// K step s (16 k: two groups of 8) of an MN-major operand in layout L.
template <int L> __device__ inline std::uint64_t mn_descriptor(unsigned base, int s) {
  if constexpr (L == 1) return descriptor(base + 2048 * s, 1024, 128, 0);
  if constexpr (L == 3) return descriptor(base + 2048 * s, 512, 1024, 2);
  return descriptor(base + 2048 * s, 8192, 1024, 1);
}
// K step s of a K-major 128B-swizzled operand (rows of 64 halves: chunk c of row r at c ^ (r % 8)).
__device__ inline std::uint64_t k_descriptor(unsigned base, int s) { return descriptor(base + 32 * s, 16, 1024, 1); }

__device__ inline void mma_b_mn(float* d, std::uint64_t a, std::uint64_t b, int accumulate) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
               "%32, %33, p, 1, 1, 0, 1;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
               : "l"(a), "l"(b), "r"(accumulate)
               : "memory");
}

__device__ inline void mma_ab_mn(float* d, std::uint64_t a, std::uint64_t b, int accumulate) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
               "%32, %33, p, 1, 1, 1, 1;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
               : "l"(a), "l"(b), "r"(accumulate)
               : "memory");
}

template <int L> __global__ void __launch_bounds__(128) gemm_mn(const __half* a, const __half* b, float* d) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __shared__ __align__(1024) unsigned char sa[64 * 128];
  __shared__ __align__(1024) unsigned char sb[64 * 128];
  const unsigned t = threadIdx.x, warp = t / 32, lane = t % 32;
  const auto base_a = static_cast<unsigned>(__cvta_generic_to_shared(sa));
  const auto base_b = static_cast<unsigned>(__cvta_generic_to_shared(sb));
  for (unsigned i = t; i < 64 * 64; i += 128) { // element (row i / 64, k i % 64) of A and of B
    const unsigned row = i / 64, k = i % 64;
    if constexpr (L >= 2)
      *reinterpret_cast<__half*>(sa + (mn_swizzled<L>(base_a, row, k) - base_a)) = a[i];
    else
      *reinterpret_cast<__half*>(sa + row * 128 + (((k / 8) ^ (row % 8)) * 16) + (k % 8) * 2) = a[i];
    *reinterpret_cast<__half*>(sb + (mn_swizzled<L>(base_b, row, k) - base_b)) = b[i];
  }
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  float acc[32];
  for (int i = 0; i < 32; ++i) acc[i] = 0.0f;
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
  for (int s = 0; s < 4; ++s) {
    if constexpr (L >= 2)
      mma_ab_mn(acc, mn_descriptor<L>(base_a, s), mn_descriptor<L>(base_b, s), s);
    else
      mma_b_mn(acc, k_descriptor(base_a, s), mn_descriptor<L>(base_b, s), s);
  }
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  for (int i = 0; i < 32; ++i) { // the f32 accumulator fragment: warp w holds rows 16w .. 16w + 15
    const unsigned row = 16 * warp + lane / 4 + 8 * ((i / 2) % 2), col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
    d[row * 64 + col] = acc[i];
  }
#endif
}

__global__ void naive(const __half* a, const __half* b, float* d) {
  for (unsigned i = threadIdx.x; i < 64 * 64; i += blockDim.x) {
    const unsigned row = i / 64, col = i % 64;
    float sum = 0.0f;
    for (int k = 0; k < 64; ++k) sum += __half2float(a[row * 64 + k]) * __half2float(b[col * 64 + k]);
    d[i] = sum;
  }
}
