#pragma once
// Stride family: a few blocks fill a small shared array from global memory, then every warp loads
// from it `iters` times, lane l reading element (l / group) * stride; the loads are the measured
// requests (stores only fill the array). Variants differ in how many lanes share an element
// (group): 1 strided, 2 multicast, 32 broadcast. The element width is a parameter: 1, 2, 4, 8 or
// 16 bytes, read by exactly one LDS.U8, LDS.U16, LDS, LDS.64 or LDS.128 (common/shared_load.cuh).
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "kernels/common/params.hpp"
#include "kernels/common/compare.hpp"
#include "kernels/common/device_buffer.cuh"
#include "kernels/common/readback.cuh"
#include "kernels/common/host_parallel.hpp"
#include "runner/launch/cuda_call.hpp"
#include "runner/registry/registry.hpp"
#include "kernels/stride/pattern.hpp"
#include "kernels/stride/kernel.cuh"

namespace bb::stride {

inline constexpr int k_max_stride = 1024;
inline constexpr int k_max_blocks = 65536;
inline constexpr int k_max_iters = 1 << 20;
inline constexpr int k_max_smem_bytes = 48 * 1024;

inline const family_info& family() {
  static const family_info f{"stride",
                             "a warp loads s[(lane / group) * stride] from shared memory, elements of 1 to 16 bytes",
                             {{"stride", 1, "elements from one lane group's element to the next's (broadcast: 1 only)"},
                              {"width", 4, "bytes per element and per load: 1, 2, 4, 8 or 16"},
                              {"blocks", 8, "blocks of 8 warps; every warp makes the same requests"},
                              {"iters", 512, "loads per warp"}}};
  return f;
}

struct config {
  int stride = 1, width = 4, group = 1, blocks = 1, iters = 1;
  [[nodiscard]] int elements() const { return array_elements(stride, group, width); }
  [[nodiscard]] int acc_words() const { return width > 4 ? width / 4 : 1; }
  [[nodiscard]] std::size_t threads() const { return static_cast<std::size_t>(blocks) * k_block; }
};

/// The parameters of a configuration for lane groups of `group`; unsupported_parameter outside
/// what the kernel handles.
inline config checked_config(const nlohmann::json& params, int group) {
  auto in_range = [&](const char* name, std::int64_t low, std::int64_t high) {
    return static_cast<int>(param::in_range(params, name, low, high));
  };
  config c;
  c.group = group;
  c.stride = in_range("stride", 1, k_max_stride);
  if (group == 32 && c.stride != 1)
    throw unsupported_parameter("stride = " + std::to_string(c.stride) +
                                ": every lane of a broadcast reads one element, so stride must be 1");
  c.width = static_cast<int>(param::one_of(params, "width", {1, 2, 4, 8, 16}));
  c.blocks = in_range("blocks", 1, k_max_blocks);
  c.iters = in_range("iters", 1, k_max_iters);
  if (static_cast<std::int64_t>(c.elements()) * c.width > k_max_smem_bytes)
    throw unsupported_parameter("stride = " + std::to_string(c.stride) + " at width " + std::to_string(c.width) +
                                " needs more than 48 KiB of shared memory");
  return c;
}

/// Buffers, seeded inputs, launch and the CPU check for one element width.
template <int Width> class stride_problem final : public problem {
public:
  using T = typename element<Width>::type;

  stride_problem(const config& c, std::uint64_t seed) : m_config(c) {
    m_host_in.resize(static_cast<std::size_t>(c.elements()) * Width);
    host::splitmix64 rng{seed};
    for (auto& b : m_host_in) b = static_cast<std::uint8_t>(rng.next() >> 56);
    m_in = device_buffer<T>(static_cast<std::size_t>(c.elements()));
    m_out = device_buffer<acc_type<Width>>(c.threads());
    BB_CUDA_CALL(cudaMemcpy(m_in.get(), m_host_in.data(), m_in.bytes(), cudaMemcpyHostToDevice));
  }

  void launch(void* stream) override {
    const std::size_t smem = static_cast<std::size_t>(m_config.elements()) * Width;
    stride_kernel<Width><<<static_cast<unsigned>(m_config.blocks), k_block, smem, static_cast<cudaStream_t>(stream)>>>(
        m_in.get(), m_out.get(), m_config.stride, m_config.group, m_config.iters, m_config.elements());
    BB_CUDA_CALL(cudaGetLastError());
  }

  void poison_output() override { BB_CUDA_CALL(cudaMemset(m_out.get(), 0xff, m_out.bytes())); }

  /// Exact: integer folds of the same words in the same order. Every thread is checked; those of
  /// one lane number hold the same value.
  verify_result verify() override {
    const int words = m_config.acc_words();
    std::vector<std::uint32_t> lane_acc(32 * static_cast<std::size_t>(words), 0);
    for (int lane = 0; lane < 32; ++lane)
      for (int k = 0; k < m_config.iters; ++k) {
        const std::size_t e = static_cast<std::size_t>(element_index(lane, k, m_config.stride, m_config.group, Width));
        for (int w = 0; w < words; ++w) {
          std::uint32_t v = 0; // the word as the GPU reads it: little-endian, zero-extended
          for (int b = 0; b < (Width < 4 ? Width : 4); ++b)
            v |= static_cast<std::uint32_t>(
                     m_host_in[e * Width + static_cast<std::size_t>(w) * 4 + static_cast<std::size_t>(b)])
                 << (8 * b);
          auto& acc = lane_acc[static_cast<std::size_t>(lane * words + w)];
          acc = mix(acc, v);
        }
      }
    const auto per_thread = static_cast<std::size_t>(words);
    auto want = [&](std::size_t i) { return lane_acc[(i / per_thread % 32) * per_thread + i % per_thread]; };
    return verify_elements(
        reinterpret_cast<const std::uint32_t*>(m_out.get()), m_config.threads() * per_thread,
        [&](std::size_t i, std::uint32_t got) { return got != want(i); },
        [&](std::size_t i, std::uint32_t got) {
          const std::size_t thread = i / per_thread;
          return "out[block " + std::to_string(thread / k_block) + ", thread " + std::to_string(thread % k_block) +
                 ", word " + std::to_string(i % per_thread) + "] = " + std::to_string(got) + ", expected " +
                 std::to_string(want(i));
        });
  }

  [[nodiscard]] std::uint64_t bytes_moved() const override { return m_in.bytes() * m_config.blocks + m_out.bytes(); }
  [[nodiscard]] int smem_access_bytes() const override { return Width; }
  [[nodiscard]] std::uint64_t device_bytes() const override { return m_in.bytes() + m_out.bytes(); }

private:
  config m_config;
  std::vector<std::uint8_t> m_host_in;
  device_buffer<T> m_in;
  device_buffer<acc_type<Width>> m_out;
};

template <int Group> problem_factory factory() {
  return [](const nlohmann::json& params, std::uint64_t seed) -> std::unique_ptr<problem> {
    const config c = checked_config(params, Group);
    switch (c.width) {
    case 1: return std::make_unique<stride_problem<1>>(c, seed);
    case 2: return std::make_unique<stride_problem<2>>(c, seed);
    case 4: return std::make_unique<stride_problem<4>>(c, seed);
    case 8: return std::make_unique<stride_problem<8>>(c, seed);
    default: return std::make_unique<stride_problem<16>>(c, seed);
    }
  };
}

/// The fill stores of one block: `for (e = tid; e < elements; e += k_block) s[e] = in[e]` as nvcc
/// (12.8 to 13.0, sm_90) compiles it. A thread makes trips = (elements - 1 - tid) / k_block + 1
/// stores: first trips % 4 in a remainder loop, then trips / 4 passes of a loop unrolled by 4. A
/// warp runs each loop for as long as its longest lane, one request per store instruction with the
/// lanes still in it. Where a warp's lanes differ in trips (one more for those below the array's
/// end in its last pass), they differ in remainder trips too: the remainder loop runs as long as
/// the lanes with more, and in the unrolled loop lanes one trip apart share a request. So a warp
/// makes more requests than it stores 32-element chunks (width 16, stride 23: 28 per block, not
/// 25), and at widths 1 and 2 a request's lanes can hit words 256 elements apart in one bank.
inline void add_fill_stores(model::access_plan& plan, const config& c, std::uint64_t blocks) {
  constexpr int unroll = 4;
  const auto width = static_cast<std::uint32_t>(c.width);
  for (int warp = 0; warp < k_warps; ++warp) {
    std::array<int, 32> remainder{}, passes{};
    int most_remainder = 0, most_passes = 0;
    for (int lane = 0; lane < 32; ++lane) {
      const int tid = warp * 32 + lane;
      const int trips = tid < c.elements() ? (c.elements() - 1 - tid) / k_block + 1 : 0;
      remainder[static_cast<std::size_t>(lane)] = trips % unroll;
      passes[static_cast<std::size_t>(lane)] = trips / unroll;
      most_remainder = std::max(most_remainder, trips % unroll);
      most_passes = std::max(most_passes, trips / unroll);
    }
    // One request: the lanes with `in_loop`, each storing element tid + trip(lane) * k_block.
    auto store = [&](auto in_loop, auto trip) {
      model::warp_access a;
      a.kind = model::access_kind::store;
      a.width = c.width;
      a.active = 0;
      for (int lane = 0; lane < 32; ++lane) {
        if (!in_loop(static_cast<std::size_t>(lane))) continue;
        a.active |= 1u << lane;
        const int e = warp * 32 + lane + trip(static_cast<std::size_t>(lane)) * k_block;
        a.address[static_cast<std::size_t>(lane)] = static_cast<std::uint32_t>(e) * width;
      }
      plan.add(blocks, a);
    };
    for (int i = 0; i < most_remainder; ++i)
      store([&](std::size_t l) { return remainder[l] > i; }, [&](std::size_t) { return i; });
    for (int pass = 0; pass < most_passes; ++pass)
      for (int u = 0; u < unroll; ++u)
        store([&](std::size_t l) { return passes[l] > pass; },
              [&](std::size_t l) { return remainder[l] + pass * unroll + u; });
  }
}

/// stride_kernel's shared-memory requests, from the same element_index: the fill's stores
/// (add_fill_stores) and, per warp, `iters` loads that repeat with period k_shifts. Every warp of
/// every block issues the same loads.
template <int Group> model::access_plan shared_access_plan(const nlohmann::json& params) {
  const config c = checked_config(params, Group);
  const auto width = static_cast<std::uint32_t>(c.width);
  const auto blocks = static_cast<std::uint64_t>(c.blocks);
  model::access_plan plan;
  plan.access_bytes = c.width;
  add_fill_stores(plan, c, blocks);
  for (int k = 0; k < k_shifts && k < c.iters; ++k) {
    model::warp_access load;
    load.width = c.width;
    for (int lane = 0; lane < 32; ++lane)
      load.address[static_cast<std::size_t>(lane)] =
          static_cast<std::uint32_t>(element_index(lane, k, c.stride, c.group, c.width)) * width;
    const auto issues = static_cast<std::uint64_t>((c.iters - k + k_shifts - 1) / k_shifts); // loads k, k + 8, ...
    plan.add(blocks * k_warps * issues, load);
  }
  return plan;
}

} // namespace bb::stride
