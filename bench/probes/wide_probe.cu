// Wide-access probe for the bank model's rule 3b (runner/model/rules.hpp): one warp, per-lane byte
// offsets from a table of patterns, 64 loads or stores of W = 4, 8 or 16 bytes per lane (LDS,
// LDS.64, LDS.128 / STS...), one launch per pattern and direction. Standalone, no bankbench code:
//   nvcc -O3 -arch=sm_90 -std=c++17 -o wide_probe bench/probes/wide_probe.cu (or -DBB_BUILD_PROBES=ON: bb_wide_probe)
//   ncu --csv --metrics smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,\
//   l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,\
//   l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum \
//   ./wide_probe > probe.csv
// Launch k is pattern line "PATTERN k" of stdout; divide wavefronts and conflicts by the requests
// (64). What an H200 read is bench/probes/measured/h200-wide-probe.txt.
#include <cstdio>
#include <cstdint>
#include <vector>
#include <string>
#include <functional>
#include <cuda_runtime.h>

constexpr int ITERS = 64;
constexpr unsigned INACTIVE = 0xffffffffu;

template <int W, bool Store> __global__ void probe(const unsigned* off, unsigned* out) {
  __shared__ __align__(16) unsigned char s[16384];
  const unsigned o = off[threadIdx.x];
  unsigned acc = 0;
  if (o != INACTIVE) {
    const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(s)) + o;
    for (int k = 0; k < ITERS; ++k) {
      if constexpr (W == 4) {
        if constexpr (Store)
          asm volatile("st.volatile.shared.u32 [%0], %1;" ::"r"(a), "r"(k) : "memory");
        else {
          unsigned v;
          asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(v) : "r"(a) : "memory");
          acc += v;
        }
      } else if constexpr (W == 8) {
        if constexpr (Store)
          asm volatile("st.volatile.shared.v2.u32 [%0], {%1, %2};" ::"r"(a), "r"(k), "r"(acc) : "memory");
        else {
          unsigned x, y;
          asm volatile("ld.volatile.shared.v2.u32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "r"(a) : "memory");
          acc += x ^ y;
        }
      } else {
        if constexpr (Store)
          asm volatile("st.volatile.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(a), "r"(k), "r"(acc), "r"(k), "r"(acc)
                       : "memory");
        else {
          unsigned x, y, z, w;
          asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                       : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
                       : "r"(a)
                       : "memory");
          acc += x ^ y ^ z ^ w;
        }
      }
    }
  }
  out[threadIdx.x] = acc;
}

struct pattern {
  int w;
  std::string name;
  std::function<unsigned(int)> f;
};

int main() {
  auto act = [](bool on, unsigned v) { return on ? v : INACTIVE; };
  std::vector<pattern> ps = {
      {4, "contig", [](int l) { return 4u * l; }},
      {8, "contig", [](int l) { return 8u * l; }},
      {8, "contig+8", [](int l) { return 8u + 8u * l; }},
      {8, "contig+64", [](int l) { return 64u + 8u * l; }},
      {8, "contig+128", [](int l) { return 128u + 8u * l; }},
      {8, "contig+256", [](int l) { return 256u + 8u * l; }},
      {8, "mod16", [](int l) { return 8u * (l % 16); }},
      {8, "mod16+8", [](int l) { return 8u + 8u * (l % 16); }},
      {8, "mod16+64", [](int l) { return 64u + 8u * (l % 16); }},
      {8, "perm5", [](int l) { return 8u * ((l * 5) % 32); }},
      {8, "halves_same_banks", [](int l) { return l < 16 ? 8u * l : 256u + 8u * (l - 16); }},
      {8, "lanes0-15", [&](int l) { return act(l < 16, 8u * l); }},
      {8, "lanes0-7,16-23_distinct128", [&](int l) { return act(l % 16 < 8, 8u * (l % 8 + 8 * (l / 16))); }},
      {8, "broadcast", [](int) { return 0u; }},
      {8, "stride2", [](int l) { return 16u * l; }},
      {8, "lane_pairs_cross_half", [](int l) { return 8u * (l % 16) + (l >= 16 ? 128u : 0u); }},
      {16, "contig", [](int l) { return 16u * l; }},
      {16, "contig+16", [](int l) { return 16u + 16u * l; }},
      {16, "contig+64", [](int l) { return 64u + 16u * l; }},
      {16, "contig+128", [](int l) { return 128u + 16u * l; }},
      {16, "contig+256", [](int l) { return 256u + 16u * l; }},
      {16, "mod8", [](int l) { return 16u * (l % 8); }},
      {16, "mod8+16", [](int l) { return 16u + 16u * (l % 8); }},
      {16, "mod16", [](int l) { return 16u * (l % 16); }},
      {16, "quads", [](int l) { return 16u * (l / 4); }},
      {16, "lanes0-3,16-19_distinct128", [&](int l) { return act(l % 16 < 4, 16u * (l % 4 + 4 * (l / 16))); }},
      {16, "lanes0-7", [&](int l) { return act(l < 8, 16u * l); }},
      {16, "lanes0-7,16-23_same128", [&](int l) { return act(l % 16 < 8, 16u * (l % 8)); }},
      {16, "lanes0-7,8-15_same128", [&](int l) { return act(l < 16, 16u * (l % 8)); }},
      {16, "lanes0-15", [&](int l) { return act(l < 16, 16u * l); }},
      {16, "broadcast", [](int) { return 0u; }},
      {16, "evens_pairs_of_halves", [](int l) { return 16u * ((l % 16) / 2) + (l >= 16 ? 128u : 0u); }},
      {16, "perm_quarters_0213",
       [](int l) {
         int q = l / 8, m[4] = {0, 2, 1, 3};
         return 16u * (l % 8 + 8 * m[q]);
       }},
      {16, "half0_lowbanks_half1_highbanks",
       [](int l) { return l < 16 ? 16u * (l % 4) + 128u * (l / 4) : 64u + 16u * (l % 4) + 128u * ((l - 16) / 4); }},
      {8, "pairs", [](int l) { return 8u * (l / 2); }},
      {8, "r2_odd_inactive", [&](int l) { return act(l % 2 == 0, 8u * (l / 2)); }},
      {8, "r3_pairs_halves_same", [](int l) { return 8u * ((l % 16) / 2); }},
      {8, "r5_pairs_shifted", [](int l) { return 8u * ((l + 1) / 2); }},
      {8, "r6_quads", [](int l) { return 8u * (l / 4); }},
      {8, "r7_pairs_but_31", [](int l) { return l == 31 ? 320u : 8u * (l / 2); }},
      {8, "r8_pairs_conflict4", [](int l) { return 256u * ((l / 2) % 4) + 8u * (l / 8); }},
      {8, "r9_even_inactive_pairs", [&](int l) { return act(l % 2 == 1, 8u * (l / 2)); }},
      {8, "r10_half0_pairs_half1_inactive", [&](int l) { return act(l < 16, 8u * (l / 2)); }},
      {8, "r11_pairs_one_pair_inactive", [&](int l) { return act(l / 2 != 5, 8u * (l / 2)); }},
      {8, "r12_pairs_4way_same_line", [](int l) { return 256u * ((l / 2) % 4) + 8u * ((l / 2) / 4); }},
      {16, "pairs", [](int l) { return 16u * (l / 2); }},
      {16, "s1_pairs_halves_same", [](int l) { return 16u * ((l % 16) / 2); }},
      {16, "s2_odd_inactive", [&](int l) { return act(l % 2 == 0, 16u * (l / 2)); }},
      {16, "s3_pairs_but_31", [](int l) { return l == 31 ? 256u : 16u * (l / 2); }},
      {16, "s5_pairs_quarters_same", [](int l) { return 16u * ((l % 8) / 2); }},
      {16, "s6_pairs_shifted", [](int l) { return 16u * ((l + 1) / 2); }},
      {16, "s7_quads_halves_same", [](int l) { return 16u * ((l % 16) / 4); }},
      {16, "s8_pairs_conflict", [](int l) { return 128u * ((l / 2) % 4) + 16u * (l / 8); }},
  };

  unsigned *d_off, *d_out;
  cudaMalloc(&d_off, 32 * 4);
  cudaMalloc(&d_out, 32 * 4);
  int id = 0;
  for (int store = 0; store < 2; ++store)
    for (const auto& p : ps) {
      unsigned h[32];
      for (int l = 0; l < 32; ++l) h[l] = p.f(l);
      cudaMemcpy(d_off, h, sizeof h, cudaMemcpyHostToDevice);
      if (p.w == 4) store ? probe<4, true><<<1, 32>>>(d_off, d_out) : probe<4, false><<<1, 32>>>(d_off, d_out);
      if (p.w == 8) store ? probe<8, true><<<1, 32>>>(d_off, d_out) : probe<8, false><<<1, 32>>>(d_off, d_out);
      if (p.w == 16) store ? probe<16, true><<<1, 32>>>(d_off, d_out) : probe<16, false><<<1, 32>>>(d_off, d_out);
      cudaDeviceSynchronize();
      printf("PATTERN %d %s %d %s\n", id++, store ? "st" : "ld", p.w, p.name.c_str());
    }
  printf("status %s\n", cudaGetErrorString(cudaGetLastError()));
}
