// fft without a GPU: the kernel's constant-geometry algorithm (kernels/fft/pease.hpp), run on the CPU
// in double, and the reference FFT both match a direct DFT; the access plans give the signatures
// experiments/fft/fft.yaml expects.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <vector>

#include "kernels/fft/pease.hpp"
#include "plan_test_util.hpp"

namespace {

using namespace bb::fft;
using bb::test::per_request;
using bb::test::predict_of;

std::vector<float> input(unsigned seed) {
  std::vector<float> v(2 * k_points);
  unsigned x = seed;
  for (auto& f : v) {
    x = x * 1664525u + 1013904223u;
    f = static_cast<float>(static_cast<int>(x >> 8) - (1 << 23)) / (1 << 23);
  }
  return v;
}

std::vector<std::complex<double>> dft(const std::vector<float>& in) {
  const double pi = std::acos(-1.0);
  std::vector<std::complex<double>> X(k_points);
  for (int k = 0; k < k_points; ++k)
    for (int j = 0; j < k_points; ++j)
      X[k] += std::complex<double>(in[2 * j], in[2 * j + 1]) *
              std::polar(1.0, -2 * pi * ((j * k) % k_points) / k_points);
  return X;
}

double max_error(const std::vector<std::complex<double>>& a, const std::vector<std::complex<double>>& b) {
  double e = 0;
  for (std::size_t i = 0; i < a.size(); ++i) e = std::max(e, std::abs(a[i] - b[i]));
  return e;
}

TEST(fft_host, the_kernels_algorithm_and_the_reference_match_a_direct_dft) {
  for (unsigned seed : {1u, 2u}) {
    const auto in = input(seed);
    const auto want = dft(in);
    std::vector<std::complex<double>> x(k_points);
    for (int i = 0; i < k_points; ++i) x[i] = {in[2 * i], in[2 * i + 1]};
    EXPECT_LT(max_error(pease_fft(x), want), 1e-9);
    std::vector<std::complex<double>> ref(k_points);
    reference_fft(in.data(), ref.data());
    EXPECT_LT(max_error(ref, want), 1e-9);
  }
}

TEST(fft_host, the_tolerance_passes_float_rounding_and_fails_a_wrong_twiddle) {
  const auto in = input(3);
  std::vector<std::complex<double>> X(k_points);
  reference_fft(in.data(), X.data());
  const double tol = tolerance(X.data());
  // About 9 * 8 * 2^-24 * sqrt(512 * 2/3) * sqrt(512): a few 1e-3 for inputs in [-1, 1).
  EXPECT_GT(tol, 1e-4);
  EXPECT_LT(tol, 1e-2);
  std::vector<std::complex<double>> x(k_points);
  for (int i = 0; i < k_points; ++i) x[i] = {in[2 * i], in[2 * i + 1]};
  x[5] += 0.05; // one input off by 0.05 moves every output by 0.05: far less than a wrong twiddle does
  EXPECT_GT(max_error(pease_fft(x), X), tol);
}

TEST(fft_host, bit_reversal_is_an_involution) {
  for (int i = 0; i < k_points; ++i) EXPECT_EQ(bit_reverse(bit_reverse(i)), i);
  EXPECT_EQ(bit_reverse(1), 256);
  EXPECT_EQ(bit_reverse(2), 128);
}

TEST(fft_host, plans_give_the_signatures_of_the_experiment) {
  const auto u = predict_of("fft", "unpadded", {{"batch", 10}});
  EXPECT_EQ(u.load.requests, 3200u);
  EXPECT_EQ(u.store.requests, 3200u);
  EXPECT_DOUBLE_EQ(per_request(u.load), 2.5);
  EXPECT_DOUBLE_EQ(per_request(u.store), 1.9);
  const auto p = predict_of("fft", "padded", {{"batch", 10}});
  EXPECT_EQ(p.load.requests, 3200u);
  EXPECT_DOUBLE_EQ(per_request(p.load), 1.0);
  EXPECT_DOUBLE_EQ(per_request(p.store), 1.0);
  EXPECT_THROW(bb::test::plan_of("fft", "padded", {{"batch", 0}}), bb::unsupported_parameter);
}

} // namespace
