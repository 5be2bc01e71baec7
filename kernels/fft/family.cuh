#pragma once
// FFT family: batches of 512-point complex-float forward FFTs, one block of 256 threads per FFT,
// radix-2 butterflies in shared memory. The algorithm is the constant-geometry (Pease) decimation
// in frequency: at every one of the 9 stages thread j reads elements j and j + 256 and writes
// elements 2j and 2j + 1 of the other buffer, so every stage makes the same requests, and the
// output ends in bit-reversed order, which the final read undoes. Real and imaginary parts are
// separate float arrays (4-byte accesses). Variants differ only in where element i lives (Layout).
#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "common/device_buffer.cuh"
#include "common/device_fill.cuh"
#include "common/readback.cuh"
#include "common/uniform.hpp"
#include "fft/pease.hpp"
#include "launch/cuda_call.hpp"
#include "registry/registry.hpp"

namespace bb::fft {

inline constexpr std::int64_t k_max_batch = 1 << 20; // 4 GiB of input

inline const family_info& family() {
  static const family_info f{
      "fft",
      "512-point complex-float forward FFTs, one block each, radix-2 butterflies in shared memory",
      {{"batch", 2048, "FFTs in the batch, one block each (2048 fill an H100 or H200 twice over)"}}};
  return f;
}

inline std::int64_t checked_batch(const nlohmann::json& params) {
  const auto batch = params.at("batch").get<std::int64_t>();
  if (batch < 1 || batch > k_max_batch)
    throw unsupported_parameter("batch = " + std::to_string(batch) + " is outside 1.." + std::to_string(k_max_batch));
  return batch;
}

template <class Layout>
__global__ void __launch_bounds__(k_threads) fft_kernel(const float2* __restrict__ in, float2* __restrict__ out) {
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

template <class Layout> class fft_problem final : public problem {
public:
  fft_problem(const nlohmann::json& params, std::uint64_t seed) : m_batch(checked_batch(params)), m_seed(seed) {
    const std::size_t count = static_cast<std::size_t>(m_batch) * k_points;
    m_in = device_buffer<float2>(count);
    m_out = device_buffer<float2>(count);
    // Float i of the input is uniform_at(seed, i): real and imaginary parts interleaved, as float2 lays them out.
    fill_uniform_device(reinterpret_cast<float*>(m_in.get()), 2 * count, seed);
  }

  void launch(void* stream) override {
    fft_kernel<Layout><<<static_cast<unsigned>(m_batch), k_threads, 0, static_cast<cudaStream_t>(stream)>>>(
        m_in.get(), m_out.get());
    BB_CUDA_CALL(cudaGetLastError());
  }

  void poison_output() override {
    BB_CUDA_CALL(cudaMemset(m_out.get(), 0xff, m_out.bytes())); // every float becomes a NaN
  }

  verify_result verify() override {
    // FFT f's exact transform, from its 1024 input floats regenerated.
    auto transform = [&](std::size_t f, std::complex<double>* X) {
      float in[2 * k_points];
      for (int k = 0; k < 2 * k_points; ++k) in[k] = host::uniform_at(m_seed, 2 * f * k_points + k);
      reference_fft(in, X);
    };
    // Pieces and chunks of whole FFTs: a chunk of 64 FFTs is 32768 outputs.
    auto check = [&](std::size_t first, const float2* got, std::size_t count) {
      return host::count_mismatches_walk(
          count, 64 * k_points,
          [&](std::size_t begin, std::size_t end, auto report) {
            std::vector<std::complex<double>> X(k_points);
            for (std::size_t j = begin; j < end; j += k_points) {
              transform((first + j) / k_points, X.data());
              const double tol = tolerance(X.data());
              for (int k = 0; k < k_points; ++k) {
                const float2 g = got[j + k];
                // Written so that a NaN (the poison) fails.
                if (!(std::abs(std::complex<double>(g.x, g.y) - X[k]) <= tol)) report(j + k);
              }
            }
          },
          [&](std::size_t j) {
            std::vector<std::complex<double>> X(k_points);
            transform((first + j) / k_points, X.data());
            const float2 g = got[j];
            const std::complex<double> want = X[(first + j) % k_points];
            return "fft " + std::to_string((first + j) / k_points) + " X[" + std::to_string((first + j) % k_points) +
                   "] = (" + std::to_string(g.x) + ", " + std::to_string(g.y) + "), expected (" +
                   std::to_string(want.real()) + ", " + std::to_string(want.imag()) + ")";
          });
    };
    return verify_pieces(m_out.get(), m_out.size(), check);
  }

  [[nodiscard]] std::uint64_t bytes_moved() const override { return m_in.bytes() + m_out.bytes(); }
  [[nodiscard]] int smem_access_bytes() const override { return sizeof(float); }
  [[nodiscard]] std::uint64_t device_bytes() const override { return m_in.bytes() + m_out.bytes(); }

private:
  std::int64_t m_batch = 0;
  std::uint64_t m_seed = 0;
  device_buffer<float2> m_in;
  device_buffer<float2> m_out;
};

/// fft_kernel's shared requests for one FFT, counted batch times: each is listed for re and for
/// im. A request touches one array and one buffer, so where the compiler places them shifts every
/// lane alike and changes no bank conflict; the bases below are nominal.
template <class Layout> model::access_plan fft_access_plan(const nlohmann::json& params) {
  const auto batch = static_cast<std::uint64_t>(checked_batch(params));
  constexpr std::uint32_t k_buffer_bytes = Layout::k_words * 4;
  constexpr std::uint32_t k_im_base = 2 * k_buffer_bytes;
  model::access_plan plan;
  plan.access_bytes = 4;
  auto add = [&](model::access_kind kind, std::uint32_t buffer_base, auto element_of_thread) {
    for (std::uint32_t part : {0u, k_im_base})
      for (int w = 0; w < k_threads / 32; ++w) {
        model::warp_access a;
        a.kind = kind;
        for (int lane = 0; lane < 32; ++lane)
          a.address[lane] = part + buffer_base + static_cast<std::uint32_t>(Layout::offset(element_of_thread(w * 32 + lane))) * 4;
        plan.add(batch, a);
      }
  };
  add(model::access_kind::store, 0, [](int j) { return j; });
  add(model::access_kind::store, 0, [](int j) { return j + k_threads; });
  int cur = 0;
  for (int stage = 0; stage < k_log_points; ++stage) {
    const std::uint32_t from = cur * k_buffer_bytes, to = (1 - cur) * k_buffer_bytes;
    add(model::access_kind::load, from, read_first);
    add(model::access_kind::load, from, read_second);
    add(model::access_kind::store, to, write_first);
    add(model::access_kind::store, to, write_second);
    cur = 1 - cur;
  }
  add(model::access_kind::load, cur * k_buffer_bytes, [](int j) { return bit_reverse(j); });
  add(model::access_kind::load, cur * k_buffer_bytes, [](int j) { return bit_reverse(j + k_threads); });
  return plan;
}

template <class Layout> problem_factory factory() {
  return [](const nlohmann::json& params, std::uint64_t seed) -> std::unique_ptr<problem> {
    return std::make_unique<fft_problem<Layout>>(params, seed);
  };
}

} // namespace bb::fft
