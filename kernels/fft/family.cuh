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

#include "kernels/common/in_out_problem.cuh"
#include "kernels/common/params.hpp"
#include "kernels/common/device_buffer.cuh"
#include "kernels/common/device_check.cuh"
#include "kernels/common/device_fill.cuh"
#include "kernels/common/uniform.hpp"
#include "kernels/fft/kernel.cuh"
#include "kernels/fft/pease.hpp"
#include "runner/launch/cuda_call.hpp"
#include "runner/registry/registry.hpp"

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
  return param::in_range(params, "batch", 1, k_max_batch);
}

/// Checks FFT blockIdx.x of `got` on the GPU: the exact transform of its 1024 input floats,
/// regenerated, by the same radix-2 decimation in time as reference_fft (bit-reversed input) in
/// double, then every output against it within tolerance_of_norm2 (sum of |X_k|^2 over the block).
/// One instance per layout, like fft_kernel, so each variant's file defines its own.
template <class Layout> __global__ void __launch_bounds__(k_threads)
    check_kernel(const float2* __restrict__ got, std::uint64_t seed, device_tally* tally) {
  __shared__ double2 x[k_points];
  __shared__ double2 w[k_points / 2];
  __shared__ double norm_parts[k_threads / 32];
  const int t = static_cast<int>(threadIdx.x);
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * k_points;
  double s, c;
  sincospi(-static_cast<double>(t) / (k_points / 2), &s, &c); // W_512^t
  w[t] = make_double2(c, s);
  for (int i = t; i < k_points; i += k_threads)
    x[bit_reverse(i)] = make_double2(host::uniform_at(seed, 2 * (base + i)),
                                     host::uniform_at(seed, 2 * (base + i) + 1));
  for (int len = 2; len <= k_points; len *= 2) {
    __syncthreads();
    const int half = len / 2, k = t % half, a = (t / half) * len + k, b = a + half;
    const double2 tw = w[k * (k_points / len)], u = x[a], v0 = x[b];
    const double2 v = make_double2(v0.x * tw.x - v0.y * tw.y, v0.x * tw.y + v0.y * tw.x);
    x[a] = make_double2(u.x + v.x, u.y + v.y);
    x[b] = make_double2(u.x - v.x, u.y - v.y);
  }
  __syncthreads();
  double norm2 = 0;
  for (int k = t; k < k_points; k += k_threads) norm2 += x[k].x * x[k].x + x[k].y * x[k].y;
  for (int offset = 16; offset > 0; offset >>= 1) norm2 += __shfl_down_sync(0xffffffffu, norm2, offset);
  if (t % 32 == 0) norm_parts[t / 32] = norm2;
  __syncthreads();
  norm2 = 0;
  for (int i = 0; i < k_threads / 32; ++i) norm2 += norm_parts[i];
  const double tol = tolerance_of_norm2(norm2);
  unsigned long long wrong = 0, first = ULLONG_MAX;
  for (int k = t; k < k_points; k += k_threads) {
    const float2 g = got[base + k];
    if (!(hypot(g.x - x[k].x, g.y - x[k].y) <= tol)) { // a NaN (the poison) fails
      if (wrong++ == 0) first = base + k;
    }
  }
  detail::warp_add_to_tally(wrong, first, tally);
}

template <class Layout> class fft_problem final : public in_out_problem<float2> {
public:
  fft_problem(const nlohmann::json& params, std::uint64_t seed) : fft_problem(checked_batch(params), seed) {}
  fft_problem(std::int64_t batch, std::uint64_t seed)
      : in_out_problem(static_cast<std::size_t>(batch) * k_points, static_cast<std::size_t>(batch) * k_points),
        m_batch(batch),
        m_seed(seed) {
    // Float i of the input is uniform_at(seed, i): real and imaginary parts interleaved, as float2 lays them out.
    fill_uniform_device(reinterpret_cast<float*>(m_in.get()), 2 * m_in.size(), seed);
  }

  void launch(void* stream) override {
    fft_kernel<Layout>
        <<<static_cast<unsigned>(m_batch), k_threads, 0, static_cast<cudaStream_t>(stream)>>>(m_in.get(), m_out.get());
    BB_CUDA_CALL(cudaGetLastError());
  }

  // poison_output (in_out_problem): every byte 0xff, every float becomes a NaN.

  verify_result verify() override {
    // Every FFT checked on the GPU; the first wrong element is worded from FFT f's exact
    // transform on the CPU, its 1024 input floats regenerated.
    const device_tally t = tally_with([&](device_tally* tally) {
      check_kernel<Layout><<<static_cast<unsigned>(m_batch), k_threads>>>(m_out.get(), m_seed, tally);
    });
    verify_result r;
    r.checked = m_out.size();
    r.mismatches = t.wrong;
    if (t.wrong != 0) {
      const std::size_t f = t.first / k_points, k = t.first % k_points;
      float in[2 * k_points];
      for (int i = 0; i < 2 * k_points; ++i) in[i] = host::uniform_at(m_seed, 2 * f * k_points + i);
      std::vector<std::complex<double>> X(k_points);
      reference_fft(in, X.data());
      const float2 g = read_element(m_out.get(), t.first);
      r.first_mismatch = "fft " + std::to_string(f) + " X[" + std::to_string(k) + "] = (" + std::to_string(g.x) + ", " +
                         std::to_string(g.y) + "), expected (" + std::to_string(X[k].real()) + ", " +
                         std::to_string(X[k].imag()) + ")";
    }
    r.ok = r.mismatches == 0;
    return r;
  }

  [[nodiscard]] int smem_access_bytes() const override { return sizeof(float); }

private:
  std::int64_t m_batch = 0;
  std::uint64_t m_seed = 0;
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
          a.address[lane] = part + buffer_base +
                            static_cast<std::uint32_t>(Layout::offset(element_of_thread(w * 32 + lane))) * 4;
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
