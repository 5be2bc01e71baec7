#pragma once
// The fft family's CPU references (and, through index.hpp, its index functions), shared by the
// kernels (nvcc), the access plans and the host tests (the C++ compiler alone).
#include <cmath>
#include <complex>
#include <vector>

#include "kernels/common/host_device.hpp"
#include "kernels/fft/index.hpp"

namespace bb::fft {

/// The kernel's algorithm on the CPU in double, through the same index functions: the host test
/// checks it against a direct DFT, which pins down the twiddles and the output order.
inline std::vector<std::complex<double>> pease_fft(std::vector<std::complex<double>> x) {
  const double pi = std::acos(-1.0);
  std::vector<std::complex<double>> y(k_points);
  for (int stage = 0; stage < k_log_points; ++stage) {
    for (int j = 0; j < k_threads; ++j) {
      const auto a = x[read_first(j)], b = x[read_second(j)];
      const double angle = -pi * twiddle_exponent(stage, j) / (k_points / 2);
      y[write_first(j)] = a + b;
      y[write_second(j)] = (a - b) * std::complex<double>(std::cos(angle), std::sin(angle));
    }
    x.swap(y);
  }
  std::vector<std::complex<double>> X(k_points);
  for (int k = 0; k < k_points; ++k) X[k] = x[bit_reverse(k)];
  return X;
}

/// W_512^k = exp(-2 pi i k / 512) for k < 256, in double.
inline const std::vector<std::complex<double>>& twiddles() {
  static const auto table = [] {
    const double pi = std::acos(-1.0);
    std::vector<std::complex<double>> w(k_points / 2);
    for (int k = 0; k < k_points / 2; ++k) w[k] = std::polar(1.0, -2 * pi * k / k_points);
    return w;
  }();
  return table;
}

/// An independent reference: iterative radix-2 decimation in time (bit-reversed input), double.
/// `in` holds 512 (real, imaginary) pairs.
inline void reference_fft(const float* in, std::complex<double>* out) {
  const auto& w512 = twiddles();
  for (int i = 0; i < k_points; ++i) out[bit_reverse(i)] = {in[2 * i], in[2 * i + 1]};
  for (int len = 2; len <= k_points; len *= 2) {
    for (int start = 0; start < k_points; start += len)
      for (int k = 0; k < len / 2; ++k) {
        const auto w = w512[k * (k_points / len)];
        const auto u = out[start + k], v = out[start + k + len / 2] * w;
        out[start + k] = u + v;
        out[start + k + len / 2] = u - v;
      }
  }
}

/// Error bound for one float FFT against the exact transform: Higham (Accuracy and Stability,
/// thm 24.2) bounds the 2-norm of the error of a radix-2 FFT by log2(N) * eta / (1 - log2(N) * eta)
/// times the 2-norm of X, eta = mu + gamma_4 (sqrt 2 + mu), mu the twiddles' error (sincospif:
/// within 2 ulp). eta < 8u, so 9 * 8u * ||X|| bounds every element's error; u = 2^-24.
/// `norm2` is the sum of |X_k|^2; fft::check_kernel calls this on the GPU too.
BB_HD inline double tolerance_of_norm2(double norm2) { return k_log_points * 8 * 0x1p-24 * sqrt(norm2); }

inline double tolerance(const std::complex<double>* X) {
  double norm2 = 0;
  for (int k = 0; k < k_points; ++k) norm2 += std::norm(X[k]);
  return tolerance_of_norm2(norm2);
}

} // namespace bb::fft
