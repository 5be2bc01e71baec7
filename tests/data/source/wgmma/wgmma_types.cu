// wgmma.mma_async beyond f32 += f16 x f16: fp8 (e4m3, e5m2; k32), tf32 (k8), f16 accumulators and
// s32 += s8/u8 (k32), m64n64, A 64 x 128 bytes and B 64 x 128 bytes from shared memory through
// 128B-swizzled K-major descriptors (and, for e4m3 and u8, A from registers), four K steps of 32
// bytes: D = A B^T. Each `naive_*` computes the same product with plain loads, for the check. f16
// accumulators are stored as floats. Built for sm_90a.
//
// A from registers, 8-bit types (PTX ISA, wgmma A fragment): warp w holds rows 16w .. 16w + 15;
// register i of lane l holds row 16w + l / 4 + 8 (i % 2), bytes 4 (l % 4) + 16 (i / 2) .. + 3.
// f16 accumulators: register j of lane l holds row 16w + l / 4 + 8 (j % 2), columns
// 8 (j / 2) + 2 (l % 4) and the next.
#include <cstdint>

#include <cuda_fp16.h>
#include <cuda_fp8.h>

// 16-byte chunk c of row r of a 128-byte-row operand sits at chunk c ^ (r % 8): the 128B swizzle.
__device__ inline unsigned swizzled(unsigned row, unsigned chunk) { return row * 128 + ((chunk ^ (row % 8)) * 16); }

// Descriptor: start >> 4, leading byte offset 16 (unused by swizzled K-major), stride 1024 (8 rows
// of 128 bytes) >> 4, layout 1 (128B swizzle).
__device__ inline std::uint64_t descriptor(unsigned address) {
  return static_cast<std::uint64_t>((address & 0x3FFFF) >> 4) | std::uint64_t{16 >> 4} << 16 |
         std::uint64_t{1024 >> 4} << 32 | std::uint64_t{1} << 62;
}

__device__ inline void mma_e4m3(float* d, std::uint64_t a, std::uint64_t b, int accumulate) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
               "%32, %33, p, 1, 1;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
               : "l"(a), "l"(b), "r"(accumulate)
               : "memory");
}

__device__ inline void mma_e4m3_rs(float* d, const std::uint32_t (&a)[4], std::uint64_t b, int accumulate) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
               "{%32, %33, %34, %35}, %36, p, 1, 1;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate)
               : "memory");
}

__device__ inline void mma_e5m2_e4m3_f16(std::uint32_t* d, std::uint64_t a, std::uint64_t b, int accumulate) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n64k32.f16.e5m2.e4m3 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, "
               "%16, %17, p, 1, 1;\n}\n"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15])
               : "l"(a), "l"(b), "r"(accumulate)
               : "memory");
}

__device__ inline void mma_tf32(float* d, std::uint64_t a, std::uint64_t b, int accumulate) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
               "%32, %33, p, 1, 1;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
               : "l"(a), "l"(b), "r"(accumulate)
               : "memory");
}

__device__ inline void mma_f16_f16(std::uint32_t* d, std::uint64_t a, std::uint64_t b, int accumulate) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n64k16.f16.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, "
               "%16, %17, p, 1, 1, 0, 0;\n}\n"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15])
               : "l"(a), "l"(b), "r"(accumulate)
               : "memory");
}

// Both operands into shared memory, 128B-swizzled; then `steps` of the product.
__device__ inline void stage(const uint4* a, const uint4* b, unsigned char* sa, unsigned char* sb) {
  for (unsigned i = threadIdx.x; i < 64 * 8; i += 128) {
    *reinterpret_cast<uint4*>(sa + swizzled(i / 8, i % 8)) = a[i];
    *reinterpret_cast<uint4*>(sb + swizzled(i / 8, i % 8)) = b[i];
  }
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
}

__device__ inline void store_f32(const float (&acc)[32], float* d) {
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int i = 0; i < 32; ++i) { // the f32 accumulator fragment: warp w holds rows 16w .. 16w + 15
    const unsigned row = 16 * warp + lane / 4 + 8 * ((i / 2) % 2), col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
    d[row * 64 + col] = acc[i];
  }
}

__device__ inline void store_f16(const std::uint32_t (&acc)[16], float* d) {
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int j = 0; j < 16; ++j) { // the f16 accumulator fragment: two halves a register
    const unsigned row = 16 * warp + lane / 4 + 8 * (j % 2), col = 8 * (j / 2) + 2 * (lane % 4);
    const __half2 pair = *reinterpret_cast<const __half2*>(&acc[j]);
    d[row * 64 + col] = __low2float(pair);
    d[row * 64 + col + 1] = __high2float(pair);
  }
}

#define WGMMA_BEGIN                                                                                            \
  __shared__ __align__(1024) unsigned char sa[64 * 128];                                                       \
  __shared__ __align__(1024) unsigned char sb[64 * 128];                                                       \
  stage(a, b, sa, sb);                                                                                         \
  const auto base_a = static_cast<unsigned>(__cvta_generic_to_shared(sa));                                     \
  const auto base_b = static_cast<unsigned>(__cvta_generic_to_shared(sb));                                     \
  (void)base_a;                                                                                                \
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory")
#define WGMMA_END                                                                                              \
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");                                             \
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory")

__global__ void __launch_bounds__(128) gemm_e4m3(const uint4* a, const uint4* b, float* d) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  float acc[32] = {};
  WGMMA_BEGIN;
#pragma unroll
  for (int s = 0; s < 4; ++s) mma_e4m3(acc, descriptor(base_a + 32 * s), descriptor(base_b + 32 * s), s);
  WGMMA_END;
  store_f32(acc, d);
#endif
}

__global__ void __launch_bounds__(128) gemm_e4m3_rs(const uint4* a, const uint4* b, float* d) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  float acc[32] = {};
  WGMMA_BEGIN;
  const auto* words = reinterpret_cast<const std::uint32_t*>(a); // A row-major, 32 words of 4 bytes a row
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll
  for (int s = 0; s < 4; ++s) {
    std::uint32_t frag[4];
    for (unsigned i = 0; i < 4; ++i) {
      const unsigned row = 16 * warp + lane / 4 + 8 * (i % 2), byte = 32 * s + 4 * (lane % 4) + 16 * (i / 2);
      frag[i] = words[(row * 128 + byte) / 4];
    }
    mma_e4m3_rs(acc, frag, descriptor(base_b + 32 * s), s);
  }
  WGMMA_END;
  store_f32(acc, d);
#endif
}

__global__ void __launch_bounds__(128) gemm_e5m2_e4m3_f16(const uint4* a, const uint4* b, float* d) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  std::uint32_t acc[16] = {};
  WGMMA_BEGIN;
#pragma unroll
  for (int s = 0; s < 4; ++s) mma_e5m2_e4m3_f16(acc, descriptor(base_a + 32 * s), descriptor(base_b + 32 * s), s);
  WGMMA_END;
  store_f16(acc, d);
#endif
}

__global__ void __launch_bounds__(128) gemm_tf32(const uint4* a, const uint4* b, float* d) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  float acc[32] = {};
  WGMMA_BEGIN;
#pragma unroll
  for (int s = 0; s < 4; ++s) mma_tf32(acc, descriptor(base_a + 32 * s), descriptor(base_b + 32 * s), s);
  WGMMA_END;
  store_f32(acc, d);
#endif
}

__global__ void __launch_bounds__(128) gemm_f16_f16(const uint4* a, const uint4* b, float* d) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  std::uint32_t acc[16] = {};
  WGMMA_BEGIN;
#pragma unroll
  for (int s = 0; s < 4; ++s) mma_f16_f16(acc, descriptor(base_a + 32 * s), descriptor(base_b + 32 * s), s);
  WGMMA_END;
  store_f16(acc, d);
#endif
}

// s32 += 8-bit integers (k32): no imm-scale or imm-trans operands; .satfinite clamps the sums.
__device__ inline void mma_s8(int* d, std::uint64_t a, std::uint64_t b, int accumulate) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p;\n}\n"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31])
               : "l"(a), "l"(b), "r"(accumulate)
               : "memory");
}

__device__ inline void mma_s8_u8_sat(int* d, std::uint64_t a, std::uint64_t b, int accumulate) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.u8.satfinite {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p;\n}\n"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31])
               : "l"(a), "l"(b), "r"(accumulate)
               : "memory");
}

__device__ inline void mma_u8_s8_rs(int* d, const std::uint32_t (&a)[4], std::uint64_t b, int accumulate) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n64k32.s32.u8.s8 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, p;\n}\n"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate)
               : "memory");
}

__device__ inline void store_s32(const int (&acc)[32], int* d) {
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int i = 0; i < 32; ++i) { // the s32 accumulator fragment is the f32 one
    const unsigned row = 16 * warp + lane / 4 + 8 * ((i / 2) % 2), col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
    d[row * 64 + col] = acc[i];
  }
}

__global__ void __launch_bounds__(128) gemm_s8(const uint4* a, const uint4* b, int* d) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  int acc[32] = {};
  WGMMA_BEGIN;
#pragma unroll
  for (int s = 0; s < 4; ++s) mma_s8(acc, descriptor(base_a + 32 * s), descriptor(base_b + 32 * s), s);
  WGMMA_END;
  store_s32(acc, d);
#endif
}

__global__ void __launch_bounds__(128) gemm_s8_u8_sat(const uint4* a, const uint4* b, int* d) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  int acc[32] = {};
  WGMMA_BEGIN;
#pragma unroll
  for (int s = 0; s < 4; ++s) mma_s8_u8_sat(acc, descriptor(base_a + 32 * s), descriptor(base_b + 32 * s), s);
  WGMMA_END;
  store_s32(acc, d);
#endif
}

__global__ void __launch_bounds__(128) gemm_u8_s8_rs(const uint4* a, const uint4* b, int* d) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  int acc[32] = {};
  WGMMA_BEGIN;
  const auto* words = reinterpret_cast<const std::uint32_t*>(a); // A row-major, 32 words of 4 bytes a row
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll
  for (int s = 0; s < 4; ++s) {
    std::uint32_t frag[4];
    for (unsigned i = 0; i < 4; ++i) {
      const unsigned row = 16 * warp + lane / 4 + 8 * (i % 2), byte = 32 * s + 4 * (lane % 4) + 16 * (i / 2);
      frag[i] = words[(row * 128 + byte) / 4];
    }
    mma_u8_s8_rs(acc, frag, descriptor(base_b + 32 * s), s);
  }
  WGMMA_END;
  store_s32(acc, d);
#endif
}

// The plain products, each operand decoded by CUDA's own conversions.
__device__ inline float e4m3(unsigned char v) {
  return __half2float(__half(__nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(v), __NV_E4M3)));
}
__device__ inline float e5m2(unsigned char v) {
  return __half2float(__half(__nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(v), __NV_E5M2)));
}

__global__ void naive_e4m3(const uint4* a, const uint4* b, float* d) {
  const auto* ba = reinterpret_cast<const unsigned char*>(a);
  const auto* bb = reinterpret_cast<const unsigned char*>(b);
  for (unsigned i = threadIdx.x; i < 64 * 64; i += blockDim.x) {
    float sum = 0.0f;
    for (int k = 0; k < 128; ++k) sum += e4m3(ba[i / 64 * 128 + k]) * e4m3(bb[i % 64 * 128 + k]);
    d[i] = sum;
  }
}

__global__ void naive_e5m2_e4m3(const uint4* a, const uint4* b, float* d) {
  const auto* ba = reinterpret_cast<const unsigned char*>(a);
  const auto* bb = reinterpret_cast<const unsigned char*>(b);
  for (unsigned i = threadIdx.x; i < 64 * 64; i += blockDim.x) {
    float sum = 0.0f;
    for (int k = 0; k < 128; ++k) sum += e5m2(ba[i / 64 * 128 + k]) * e4m3(bb[i % 64 * 128 + k]);
    d[i] = sum;
  }
}

__global__ void naive_f32(const uint4* a, const uint4* b, float* d) {
  const auto* fa = reinterpret_cast<const float*>(a);
  const auto* fb = reinterpret_cast<const float*>(b);
  for (unsigned i = threadIdx.x; i < 64 * 64; i += blockDim.x) {
    float sum = 0.0f;
    for (int k = 0; k < 32; ++k) sum += fa[i / 64 * 32 + k] * fb[i % 64 * 32 + k];
    d[i] = sum;
  }
}

__global__ void naive_f16(const uint4* a, const uint4* b, float* d) {
  const auto* ha = reinterpret_cast<const __half*>(a);
  const auto* hb = reinterpret_cast<const __half*>(b);
  for (unsigned i = threadIdx.x; i < 64 * 64; i += blockDim.x) {
    float sum = 0.0f;
    for (int k = 0; k < 64; ++k) sum += __half2float(ha[i / 64 * 64 + k]) * __half2float(hb[i % 64 * 64 + k]);
    d[i] = sum;
  }
}

// The integer products: A's bytes as signed or unsigned, B's likewise (nvcc makes dp4a of the loop).
template <bool a_signed, bool b_signed> __global__ void naive_int(const uint4* a, const uint4* b, int* d) {
  const auto* ba = reinterpret_cast<const unsigned char*>(a);
  const auto* bb = reinterpret_cast<const unsigned char*>(b);
  const auto value = [](unsigned char v, bool is_signed) { return is_signed ? int(static_cast<signed char>(v)) : int(v); };
  for (unsigned i = threadIdx.x; i < 64 * 64; i += blockDim.x) {
    int sum = 0;
    for (int k = 0; k < 128; ++k) sum += value(ba[i / 64 * 128 + k], a_signed) * value(bb[i % 64 * 128 + k], b_signed);
    d[i] = sum;
  }
}
