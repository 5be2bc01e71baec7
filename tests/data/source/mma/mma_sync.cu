// mma.sync.aligned (the warp-level tensor-core MMA of sm_80 and later) in the forms kernels use,
// one warp computing D (16 x 8) = A (16 x K) B (K x 8), A row-major and B given as B^T (8 x K,
// row-major: the .col operand). Each lane's fragment registers are filled as the PTX ISA gives
// them (g = lane / 4, t = lane % 4, e elements a register): A register j holds row g + 8 (j % 2),
// columns e t + 4e (j / 2) and the e - 1 next; B register j rows (k) e t + 4e j and the next of
// column g; a 32-bit D register i row g + 8 (i / 2), column 2 t + i % 2; an f16 D pair j row g + 8 j,
// columns 2 t and 2 t + 1. `ldsm_f32` loads its fragments from shared memory with ldmatrix, as
// FlashAttention-2 and CUTLASS 2.x kernels do. Each `naive_*` computes the product with plain
// loads, for the check.
#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

// The 32-bit word of a row-major matrix with `cols` elements of `bytes` bytes a row holding
// elements (row, col) to (row, col + 4 / bytes - 1).
__device__ inline std::uint32_t word(const void* m, unsigned cols, unsigned bytes, unsigned row, unsigned col) {
  return static_cast<const std::uint32_t*>(m)[(row * cols + col) * bytes / 4];
}

// A's register j and B's register j for K = k, e elements a register, from the global operands.
__device__ inline std::uint32_t a_reg(const void* a, unsigned k, unsigned e, unsigned j) {
  const unsigned g = threadIdx.x / 4, t = threadIdx.x % 4;
  return word(a, k, 4 / e, g + 8 * (j % 2), e * t + 4 * e * (j / 2));
}
__device__ inline std::uint32_t b_reg(const void* bt, unsigned k, unsigned e, unsigned j) {
  const unsigned g = threadIdx.x / 4, t = threadIdx.x % 4;
  return word(bt, k, 4 / e, g, e * t + 4 * e * j);
}

__device__ inline void store_f32(const float (&acc)[4], float* d) {
  const unsigned g = threadIdx.x / 4, t = threadIdx.x % 4;
  for (unsigned i = 0; i < 4; ++i) d[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2] = acc[i];
}

#define MMA_F32(shape, types, a, b, acc)                                                                             \
  asm volatile("mma.sync.aligned." shape ".row.col.f32." types ".f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, " \
               "{%0, %1, %2, %3};"                                                                                  \
               : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])                                             \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))

// f32 += f16 x f16, m16n8k16, the fragments from shared memory by ldmatrix (rows padded by 8 halves).
__global__ void ldsm_f32(const __half* a, const __half* bt, float* d) {
  __shared__ __align__(16) __half sa[16][24];
  __shared__ __align__(16) __half sb[8][24];
  const unsigned l = threadIdx.x;
  for (unsigned i = l; i < 16 * 16; i += 32) sa[i / 16][i % 16] = a[i];
  for (unsigned i = l; i < 8 * 16; i += 32) sb[i / 16][i % 16] = bt[i];
  __syncwarp();
  std::uint32_t fa[4], fb[2];
  const auto row_a = static_cast<unsigned>(__cvta_generic_to_shared(&sa[l % 16][l / 16 * 8]));
  const auto row_b = static_cast<unsigned>(__cvta_generic_to_shared(&sb[l % 8][l / 8 % 2 * 8]));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(fa[0]), "=r"(fa[1]), "=r"(fa[2]), "=r"(fa[3])
               : "r"(row_a));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(fb[0]), "=r"(fb[1]) : "r"(row_b));
  float acc[4] = {};
  MMA_F32("m16n8k16", "f16.f16", fa, fb, acc);
  store_f32(acc, d);
}

// f32 += f16 x f16 in two m16n8k8 steps.
__global__ void k8_f32(const __half* a, const __half* bt, float* d) {
  float acc[4] = {};
  for (unsigned s = 0; s < 2; ++s) {
    const unsigned g = threadIdx.x / 4, t = threadIdx.x % 4;
    const std::uint32_t fa[2] = {word(a, 16, 2, g, 8 * s + 2 * t), word(a, 16, 2, g + 8, 8 * s + 2 * t)};
    const std::uint32_t fb = word(bt, 16, 2, g, 8 * s + 2 * t);
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
                 : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                 : "r"(fa[0]), "r"(fa[1]), "r"(fb));
  }
  store_f32(acc, d);
}

// f16 += f16 x f16, m16n8k16, stored as floats.
__global__ void k16_f16(const __half* a, const __half* bt, float* d) {
  std::uint32_t fa[4], fb[2], acc[2] = {0, 0};
  for (unsigned j = 0; j < 4; ++j) fa[j] = a_reg(a, 16, 2, j);
  for (unsigned j = 0; j < 2; ++j) fb[j] = b_reg(bt, 16, 2, j);
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%0, %1};"
               : "+r"(acc[0]), "+r"(acc[1])
               : "r"(fa[0]), "r"(fa[1]), "r"(fa[2]), "r"(fa[3]), "r"(fb[0]), "r"(fb[1]));
  const unsigned g = threadIdx.x / 4, t = threadIdx.x % 4;
  for (unsigned j = 0; j < 2; ++j) {
    const __half2 pair = *reinterpret_cast<const __half2*>(&acc[j]);
    d[(g + 8 * j) * 8 + 2 * t] = __low2float(pair);
    d[(g + 8 * j) * 8 + 2 * t + 1] = __high2float(pair);
  }
}

// f32 += bf16 x bf16, m16n8k16.
__global__ void k16_bf16(const __nv_bfloat16* a, const __nv_bfloat16* bt, float* d) {
  std::uint32_t fa[4], fb[2];
  for (unsigned j = 0; j < 4; ++j) fa[j] = a_reg(a, 16, 2, j);
  for (unsigned j = 0; j < 2; ++j) fb[j] = b_reg(bt, 16, 2, j);
  float acc[4] = {};
  MMA_F32("m16n8k16", "bf16.bf16", fa, fb, acc);
  store_f32(acc, d);
}

// f32 += tf32 x tf32, m16n8k8, the inputs rounded to tf32 by cvt.rna.tf32.f32 first.
__global__ void k8_tf32(const float* a, const float* bt, float* d) {
  std::uint32_t fa[4], fb[2];
  for (unsigned j = 0; j < 4; ++j) {
    const std::uint32_t w = a_reg(a, 8, 1, j);
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(fa[j]) : "r"(w));
  }
  for (unsigned j = 0; j < 2; ++j) fb[j] = b_reg(bt, 8, 1, j);
  float acc[4] = {};
  MMA_F32("m16n8k8", "tf32.tf32", fa, fb, acc);
  store_f32(acc, d);
}

// s32 += s8 x s8, m16n8k32, stored as floats.
__global__ void k32_s8(const std::int8_t* a, const std::int8_t* bt, float* d) {
  std::uint32_t fa[4], fb[2];
  for (unsigned j = 0; j < 4; ++j) fa[j] = a_reg(a, 32, 4, j);
  for (unsigned j = 0; j < 2; ++j) fb[j] = b_reg(bt, 32, 4, j);
  int acc[4] = {};
  asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
               "{%8, %9}, {%0, %1, %2, %3};"
               : "+r"(acc[0]), "+r"(acc[1]), "+r"(acc[2]), "+r"(acc[3])
               : "r"(fa[0]), "r"(fa[1]), "r"(fa[2]), "r"(fa[3]), "r"(fb[0]), "r"(fb[1]));
  const float out[4] = {static_cast<float>(acc[0]), static_cast<float>(acc[1]), static_cast<float>(acc[2]),
                        static_cast<float>(acc[3])};
  store_f32(out, d);
}

// f32 += e4m3 x e4m3, m16n8k32.
__global__ void k32_e4m3(const std::uint8_t* a, const std::uint8_t* bt, float* d) {
  std::uint32_t fa[4], fb[2];
  for (unsigned j = 0; j < 4; ++j) fa[j] = a_reg(a, 32, 4, j);
  for (unsigned j = 0; j < 2; ++j) fb[j] = b_reg(bt, 32, 4, j);
  float acc[4] = {};
  MMA_F32("m16n8k32", "e4m3.e4m3", fa, fb, acc);
  store_f32(acc, d);
}

// The plain products: element (i / 8, i % 8) of D from K terms.
template <class T> __device__ inline float as_float(T v) { return static_cast<float>(v); }
template <> __device__ inline float as_float(__half v) { return __half2float(v); }
template <> __device__ inline float as_float(__nv_bfloat16 v) { return __bfloat162float(v); }

template <class T, unsigned K> __global__ void naive(const T* a, const T* bt, float* d) {
  for (unsigned i = threadIdx.x; i < 16 * 8; i += blockDim.x) {
    float sum = 0.0f;
    for (unsigned k = 0; k < K; ++k) sum += as_float(a[i / 8 * K + k]) * as_float(bt[i % 8 * K + k]);
    d[i] = sum;
  }
}

__global__ void naive_e4m3(const std::uint8_t* a, const std::uint8_t* bt, float* d) {
  const auto value = [](std::uint8_t v) {
    return __half2float(__half(__nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(v), __NV_E4M3)));
  };
  for (unsigned i = threadIdx.x; i < 16 * 8; i += blockDim.x) {
    float sum = 0.0f;
    for (unsigned k = 0; k < 32; ++k) sum += value(a[i / 8 * 32 + k]) * value(bt[i % 8 * 32 + k]);
    d[i] = sum;
  }
}
