#pragma once
// The fft family's device code: fft_kernel and the re/im arrays' layouts, with no host-only headers,
// so its code twin (bench/code_twins/fft.yaml) compiles it alone.
#include <cstddef>

#include <cuda_runtime.h>

#include "kernels/fft/index.hpp"

namespace bb::fft {

template <class Layout> __global__ void __launch_bounds__(k_threads)
    fft_kernel(const float2* __restrict__ in, float2* __restrict__ out) {
  __shared__ float re[2][Layout::k_words];
  __shared__ float im[2][Layout::k_words];
  const int j = static_cast<int>(threadIdx.x);
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * k_points;
  const float2 lo = in[base + j], hi = in[base + j + k_threads];
  re[0][Layout::offset(j)] = lo.x;
  im[0][Layout::offset(j)] = lo.y;
  re[0][Layout::offset(j + k_threads)] = hi.x;
  im[0][Layout::offset(j + k_threads)] = hi.y;
  int cur = 0;
  for (int stage = 0; stage < k_log_points; ++stage) {
    __syncthreads();
    const int a = Layout::offset(read_first(j)), b = Layout::offset(read_second(j));
    const float ar = re[cur][a], ai = im[cur][a], br = re[cur][b], bi = im[cur][b];
    float wr, wi; // exp(-2 pi i k / 512) = cos(pi k / 256) - i sin(pi k / 256), argument exact
    sincospif(-static_cast<float>(twiddle_exponent(stage, j)) / (k_points / 2), &wi, &wr);
    const float dr = ar - br, di = ai - bi;
    const int nxt = 1 - cur;
    const int c = Layout::offset(write_first(j)), d = Layout::offset(write_second(j));
    re[nxt][c] = ar + br;
    im[nxt][c] = ai + bi;
    re[nxt][d] = dr * wr - di * wi;
    im[nxt][d] = dr * wi + di * wr;
    cur = nxt;
  }
  __syncthreads();
  const int p = Layout::offset(bit_reverse(j)), q = Layout::offset(bit_reverse(j + k_threads));
  out[base + j] = make_float2(re[cur][p], im[cur][p]);
  out[base + j + k_threads] = make_float2(re[cur][q], im[cur][q]);
}

namespace {
// Element i at word i: stage writes to 2j, 2j + 1 are 2-way; the bit-reversed final read is 16-way.
struct unpadded_layout {
  static constexpr int k_words = k_points;
  __host__ __device__ static constexpr int offset(int i) { return i; }
};

// Element i at word i + i / 32: the stage writes (2j, 2j + 1) and the bit-reversed read hit 32 distinct banks.
struct padded_layout {
  static constexpr int k_words = k_points + k_points / 32;
  __host__ __device__ static constexpr int offset(int i) { return i + i / 32; }
};
} // namespace

} // namespace bb::fft
