#pragma once
// Column-sum family: a batch of 32 x 32 float matrices, each copied into a shared data[32][pitch]
// owned by one warp, after which each thread t sums 32 elements of it. Which 32 decides the bank
// pattern (Pattern): thread t summing column t makes the warp read one row per step (conflict-free
// whatever the pitch); thread t summing row t makes it read one column per step (32-way at pitch 32).
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "kernels/common/params.hpp"
#include "kernels/common/in_out_problem.cuh"
#include "kernels/common/device_buffer.cuh"
#include "kernels/common/device_check.cuh"
#include "kernels/common/device_fill.cuh"
#include "kernels/common/host_device.hpp"
#include "kernels/common/uniform.hpp"
#include "kernels/colsum/kernel.cuh"
#include "runner/launch/cuda_call.hpp"
#include "runner/registry/registry.hpp"

namespace bb::colsum {

inline constexpr int k_max_pitch = 48;               // 8 matrices of 32 x 48 floats fill 48 KiB
inline constexpr std::int64_t k_max_tiles = 1 << 18; // 1 GiB of input

inline const family_info& family() {
  static const family_info f{"colsum",
                             "per-thread sums over a shared float data[32][pitch]: thread t sums column t or row t",
                             {{"pitch", 32, "floats per row of the shared matrix, 32 to 48"},
                              {"batch", 16384, "32 x 32 matrices in the batch, 8 per block (16384: 2^24 floats)"}}};
  return f;
}

struct config {
  matrix_shape shape;
  std::int64_t tiles = 0;
};

inline config checked_config(const nlohmann::json& params) {
  config c;
  c.shape.pitch = static_cast<int>(param::in_range(params, "pitch", k_side, k_max_pitch));
  c.tiles = param::in_range(params, "batch", 1, k_max_tiles);
  return c;
}

/// Output j = m * 32 + t, thread t's sum over matrix m, against the same sum in double over the
/// inputs regenerated from the seed, with its tolerance; on host or device.
template <class Pattern> struct sum_check {
  struct expected_t {
    double sum = 0.0, tolerance = 0.0;
  };
  std::uint64_t seed;
  BB_HD expected_t expected(std::size_t j) const {
    const std::size_t m = j / k_side;
    const int t = static_cast<int>(j % k_side);
    double sum = 0.0, magnitude = 0.0;
    for (int i = 0; i < k_side; ++i) {
      const int2 rc = Pattern::element(t, i);
      const double x = host::uniform_at(seed, m * k_matrix_floats + static_cast<std::size_t>(rc.x * k_side + rc.y));
      sum += x;
      magnitude += fabs(x);
    }
    return {sum, k_side * 0x1p-24 * magnitude};
  }
  BB_HD bool operator()(std::size_t j, float got) const { // written so that a NaN fails
    const expected_t w = expected(j);
    return fabs(static_cast<double>(got) - w.sum) <= w.tolerance;
  }
};

/// Buffers, seeded inputs, launch and the check shared by both patterns.
template <class Pattern> class colsum_problem final : public in_out_problem<float> {
public:
  colsum_problem(const nlohmann::json& params, std::uint64_t seed) : colsum_problem(checked_config(params), seed) {}
  colsum_problem(const config& c, std::uint64_t seed)
      : in_out_problem(static_cast<std::size_t>(c.tiles) * k_matrix_floats, static_cast<std::size_t>(c.tiles) * k_side),
        m_config(c),
        m_seed(seed) {
    fill_uniform_device(m_in.get(), m_in.size(), seed);
  }

  void launch(void* stream) override {
    const auto blocks = static_cast<unsigned>((m_config.tiles + k_warps - 1) / k_warps);
    const std::size_t smem = static_cast<std::size_t>(k_warps) * k_side * m_config.shape.pitch * sizeof(float);
    colsum_kernel<Pattern><<<blocks, k_block, smem, static_cast<cudaStream_t>(stream)>>>(m_in.get(), m_out.get(),
                                                                                         m_config.shape,
                                                                                         m_config.tiles);
    BB_CUDA_CALL(cudaGetLastError());
  }

  /// Each sum against a double-precision reference. A float sum of n = 32 terms added one by one,
  /// in any order, is within gamma_31 sum|x_i| of the exact sum, gamma_31 = 31u / (1 - 31u) < 32u
  /// (u = 2^-24, the unit roundoff; Higham, Accuracy and Stability of Numerical Algorithms, 4.2);
  /// the double reference's own error is some 2^29 times smaller. Checked on the GPU.
  verify_result verify() override {
    const sum_check<Pattern> want{m_seed};
    return verify_on_device(m_out.get(), m_out.size(), want, [&](std::size_t j, float got) {
      const auto w = want.expected(j);
      return "out[" + std::to_string(j / k_side) + "," + std::to_string(j % k_side) + "] = " + std::to_string(got) +
             ", expected " + std::to_string(w.sum) + " +- " + std::to_string(w.tolerance);
    });
  }

  [[nodiscard]] int smem_access_bytes() const override { return sizeof(float); }

private:
  config m_config;
  std::uint64_t m_seed = 0;
};

/// colsum_kernel's shared-memory requests, from the same matrix_shape::offset and Pattern: per
/// warp with a matrix, 32 row stores and 32 loads (step i: lane t reads Pattern::element(t, i)).
/// Every warp's matrix starts a multiple of 128 bytes into shared memory, so one warp's requests
/// stand for all (a request's banks repeat every 128 bytes).
template <class Pattern> model::access_plan shared_access_plan(const nlohmann::json& params) {
  const config c = checked_config(params);
  const auto warps = static_cast<std::uint64_t>(c.tiles);
  model::access_plan plan;
  plan.access_bytes = sizeof(float);
  for (int r = 0; r < k_side; ++r) {
    model::warp_access store;
    store.kind = model::access_kind::store;
    for (int lane = 0; lane < 32; ++lane)
      store.address[static_cast<std::size_t>(lane)] = static_cast<std::uint32_t>(c.shape.offset(r, lane)) * 4;
    plan.add(warps, store);
  }
  for (int i = 0; i < k_side; ++i) {
    model::warp_access load;
    for (int lane = 0; lane < 32; ++lane) {
      const int2 rc = Pattern::element(lane, i);
      load.address[static_cast<std::size_t>(lane)] = static_cast<std::uint32_t>(c.shape.offset(rc.x, rc.y)) * 4;
    }
    plan.add(warps, load);
  }
  plan.tile = model::make_tile_layout("float data", k_side, k_side, 4, c.shape.pitch,
                                      [&](int r, int col) { return c.shape.offset(r, col); });
  return plan;
}

template <class Pattern> problem_factory factory() {
  return [](const nlohmann::json& params, std::uint64_t seed) -> std::unique_ptr<problem> {
    return std::make_unique<colsum_problem<Pattern>>(params, seed);
  };
}

} // namespace bb::colsum
