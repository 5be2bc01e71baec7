// Kernels that use the instructions tests/unit/test_ptx_ops.cpp checks the interpreter on: vector
// shared accesses, warp shuffles and votes, atomics, integer and conversion instructions.
// tests/data/ptx/README.md says how coverage.ptx was made.
#include <cuda_fp16.h>

extern "C" __global__ void vectors(const float4* in, float4* out, double2* dout, uint4* uout) {
  __shared__ float4 f4[32];
  __shared__ float2 f2[32];
  __shared__ double2 d2[32];
  __shared__ uint4 u4[32];
  const int t = threadIdx.x;
  const float4 v = in[t];
  f4[t] = v;
  f2[t] = make_float2(v.x, v.y);
  d2[t] = make_double2(v.z, v.w);
  u4[t] = make_uint4(__float_as_uint(v.x), t, t * 2, t * 3);
  __syncthreads();
  const float4 a = f4[31 - t];
  const float2 b = f2[(t * 2) % 32];
  out[t] = make_float4(a.x + b.x, a.y + b.y, a.z, a.w);
  dout[t] = d2[t ^ 1];
  uout[t] = u4[(t + 5) % 32];
}

extern "C" __global__ void warp_ops(const int* in, int* out) {
  const int t = threadIdx.x, v = in[t];
  int sum = v;
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, o);
  int* o = out + 12 * t;
  o[0] = sum;
  o[1] = __shfl_up_sync(0xffffffffu, v, 3);
  o[2] = __shfl_xor_sync(0xffffffffu, v, 5);
  o[3] = __shfl_sync(0xffffffffu, v, (t * 7) % 32);
  o[4] = __shfl_sync(0xffffffffu, v, 2, 8);
  o[5] = static_cast<int>(__ballot_sync(0xffffffffu, v & 1));
  o[6] = __any_sync(0xffffffffu, v > 90);
  o[7] = __all_sync(0xffffffffu, v >= 0);
  o[8] = static_cast<int>(__match_any_sync(0xffffffffu, v % 4));
  o[9] = __reduce_add_sync(0xffffffffu, v);
  o[10] = t % 32 < 20 ? static_cast<int>(__activemask()) : -1;
  o[11] = t % 32 < 16 ? __shfl_down_sync(0x0000ffffu, v, 1, 16) : -2;
}

extern "C" __global__ void atomics(const float* fin, unsigned* bins, float* fsum, unsigned long long* big, int* misc) {
  __shared__ float sf[8];
  __shared__ unsigned long long su[4];
  __shared__ int sc;
  const int t = threadIdx.x;
  if (t < 8) sf[t] = 0;
  if (t < 4) su[t] = 0;
  if (t == 0) sc = 0;
  __syncthreads();
  atomicAdd(&sf[t % 8], fin[t]);
  atomicAdd(&su[t % 4], static_cast<unsigned long long>(t) << 33);
  int old = sc, seen;
  while ((seen = atomicCAS(&sc, old, old + t)) != old) old = seen;
  __syncthreads();
  atomicAdd(&bins[t % 16], 1u);
  asm volatile("red.global.add.u32 [%0], %1;" ::"l"(bins + 16), "r"(static_cast<unsigned>(t)) : "memory");
  const unsigned prev = atomicAdd(reinterpret_cast<unsigned*>(&misc[0]), 1u);
  if (t < 8) atomicAdd(&fsum[t], sf[t]);
  if (t < 4) atomicAdd(&big[t], su[t]);
  if (t == 0) misc[1] = sc;
  atomicMax(&misc[2], static_cast<int>(prev) * 3);
  atomicMin(&misc[3], -t);
  atomicCAS(&big[4], 0ull, 7ull + t);
  atomicExch(&misc[4], 42);
}

extern "C" __global__ void int_ops(const unsigned* in, unsigned* out, unsigned long long* out64, short* out16,
                                   float* outf, unsigned short* outh) {
  const int t = threadIdx.x;
  const unsigned a = in[t], b = in[t + 32];
  const unsigned long long w = (static_cast<unsigned long long>(a) << 32) | b;
  unsigned* o = out + 24 * t;
  o[0] = __umulhi(a, b);
  o[1] = static_cast<unsigned>(__mulhi(static_cast<int>(a), static_cast<int>(b)));
  o[2] = __brev(a);
  o[3] = __popc(a) + __popcll(w);
  o[4] = __clz(a) + __clzll(w >> (t % 40));
  o[5] = __byte_perm(a, b, b);
  o[6] = __funnelshift_l(a, b, t);
  o[7] = __funnelshift_rc(a, b, t + 10);
  o[8] = (a & b) ^ (~a | (b >> 3));
  o[9] = min(a, b) + static_cast<unsigned>(max(static_cast<int>(a), static_cast<int>(b)));
  o[10] = (a >> 5) & 0x3ffu;
  unsigned r;
  asm("bfe.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(t), "r"(9u));
  o[11] = r;
  asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(a), "r"(b), "r"(t % 24), "r"(8u));
  o[12] = r;
  o[13] = static_cast<unsigned>(static_cast<signed char>(a)) + static_cast<unsigned short>(b);
  o[14] = static_cast<unsigned>(static_cast<int>(a) / (static_cast<int>(b % 1000) - 500 | 1));
  o[15] = a % (b | 1);
  o[16] = static_cast<unsigned>(static_cast<long long>(static_cast<int>(a)) >> (t % 8));
  o[17] = __sad(a, b, 3u);
  o[18] = a * 77u + b;
  o[19] = static_cast<unsigned>(__float2int_rn(static_cast<float>(static_cast<int>(a)) / 1024.0f));
  o[20] = __float2uint_rd(static_cast<float>(a >> 8) * 0.75f);
  o[21] = static_cast<unsigned>(__double2int_ru(static_cast<double>(static_cast<int>(b)) / 3.0));
  o[22] = static_cast<unsigned>(static_cast<int>(static_cast<float>(static_cast<int>(a)) * 1e-3f));
  o[23] = __isShared(&o[0]) ? 1u : 0u;
  out64[2 * t] = static_cast<unsigned long long>(a) * b + w;
  out64[2 * t + 1] = __umul64hi(w, 0x9e3779b97f4a7c15ull) ^
                     static_cast<unsigned long long>(__mul64hi(static_cast<long long>(w), -12345ll));
  out16[t] = static_cast<short>(static_cast<short>(a) * static_cast<short>(b) + (static_cast<short>(a) >> 3));
  const float f = static_cast<float>(static_cast<int>(a)) / static_cast<float>((b & 0xffff) + 1);
  outf[t] = f;
  outh[2 * t] = __half_as_ushort(__float2half_rn(f));
  outh[2 * t + 1] = __half_as_ushort(__float2half_rn(__half2float(__float2half_rz(f * 0.001f)) * 3.0f));
}

// Lane l gives the row address of row l % 8 of matrix l / 8 (rows of 128 bytes, chunk 0), stores
// four registers with stmatrix (.trans when `trans`), and the tile is copied out word by word.
extern "C" __global__ void stmatrix_x4(const unsigned* in, unsigned* out, int trans) {
  __shared__ __align__(128) unsigned tile[32 * 32];
  const int t = threadIdx.x;
  for (int i = 0; i < 32; ++i) tile[i * 32 + t] = 0xdeadbeefu;
  __syncwarp();
  const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(tile)) + 128u * t;
  const unsigned r0 = in[4 * t], r1 = in[4 * t + 1], r2 = in[4 * t + 2], r3 = in[4 * t + 3];
  if (trans)
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(r0), "r"(r1),
                 "r"(r2), "r"(r3)
                 : "memory");
  else
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(r0), "r"(r1),
                 "r"(r2), "r"(r3)
                 : "memory");
  __syncwarp();
  for (int i = 0; i < 32; ++i) out[i * 32 + t] = tile[i * 32 + t];
}

__constant__ int table[8] = {3, 1, 4, 1, 5, 9, 2, 6};
__constant__ float scale = 2.5f;

// Module .const data, read at an index the input gives.
extern "C" __global__ void constants(const int* idx, float* out) {
  const int t = threadIdx.x;
  out[t] = static_cast<float>(table[idx[t] % 8]) * scale;
}

// Two floats packed into one f16x2 register (cvt.rn.f16x2.f32).
extern "C" __global__ void halves(const float* in, unsigned* out) {
  const int t = threadIdx.x;
  const __half2 h = __floats2half2_rn(in[2 * t], in[2 * t + 1]);
  out[t] = *reinterpret_cast<const unsigned*>(&h);
}

// An array indexed at run time: nvcc keeps it in local memory (st.local.v4 / ld.local).
extern "C" __global__ void local_array(const int* in, int* out) {
  int a[16];
  for (int i = 0; i < 16; ++i) a[i] = in[threadIdx.x * 16 + i] * (i + 1);
  out[threadIdx.x] = a[in[threadIdx.x * 16] & 15] + a[(threadIdx.x * 3) & 15];
}
