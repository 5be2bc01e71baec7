#pragma once
// Histogram family: blocks of 256 threads count 32 bins of their share of the input in shared
// memory with atomicAdd (ATOMS), then warp 0 reads the bins back (LDS) and adds them into the
// global histogram. Variants differ in where bin b lives (one bank for every bin, padded, one
// private copy per warp) and in which bins a warp's 32 lanes hit at once (32 distinct bins, or
// one bin for the whole warp).
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include <cuda_runtime.h>

#include "kernels/common/params.hpp"
#include "kernels/common/device_buffer.cuh"
#include "kernels/common/device_check.cuh"
#include "kernels/common/device_generate.cuh"
#include "kernels/common/host_device.hpp"
#include "kernels/histogram/kernel.cuh"
#include "runner/launch/cuda_call.hpp"
#include "runner/registry/registry.hpp"

namespace bb::histogram {

inline constexpr std::int64_t k_max_n = std::int64_t{1} << 28;

inline const family_info& family() {
  static const family_info f{
      "histogram",
      "32-bin histogram with shared atomics: bins in one bank, padded, per-warp copies, one address per warp",
      {{"n", 1 << 22, "input keys, a multiple of 256 x items"},
       {"items", 16, "keys per thread: block b counts keys [b * 256 * items, (b + 1) * 256 * items)"}}};
  return f;
}

struct config {
  std::int64_t n = 0;
  int items = 0;
  [[nodiscard]] std::int64_t per_block() const { return std::int64_t{k_threads} * items; }
  [[nodiscard]] std::int64_t blocks() const { return (n + per_block() - 1) / per_block(); }
};

inline config checked_config(const nlohmann::json& params) {
  config c;
  c.items = static_cast<int>(param::in_range(params, "items", 1, 1024));
  c.n = param::in_range(params, "n", 1, k_max_n, "2^28");
  return c;
}

template <class Keys> struct key_values {
  BB_HD std::uint32_t operator()(std::uint64_t i) const { return Keys::key(i); }
};

/// The count of `bin`: whole runs of 32 keys (each bin once for distinct keys, bin m mod 32 32
/// times for same keys, run m), then the last run's keys one by one.
template <class Keys> struct expected_counts {
  std::uint64_t n;
  BB_HD std::uint64_t expected(std::size_t bin) const {
    const std::uint64_t runs = n / 32;
    std::uint64_t count = std::is_same_v<Keys, same_keys> ? 32 * (runs / k_bins + (bin < runs % k_bins ? 1 : 0)) : runs;
    for (std::uint64_t i = runs * 32; i < n; ++i) count += Keys::key(i) == bin ? 1 : 0;
    return count;
  }
  BB_HD bool operator()(std::size_t bin, std::uint32_t got) const { return got == expected(bin); }
};

template <class Layout, class Keys> class histogram_problem final : public problem {
public:
  histogram_problem(const config& c, std::uint64_t) : m_config(c) {
    m_keys = device_buffer<std::uint32_t>(static_cast<std::size_t>(c.n));
    m_out = device_buffer<std::uint32_t>(k_bins);
    generate_device(m_keys.get(), m_keys.size(), key_values<Keys>{});
  }

  void launch(void* stream) override {
    const auto s = static_cast<cudaStream_t>(stream);
    BB_CUDA_CALL(cudaMemsetAsync(m_out.get(), 0, m_out.bytes(), s));
    histogram_kernel<Layout, Keys>
        <<<static_cast<unsigned>(m_config.blocks()), k_threads, 0, s>>>(m_keys.get(), m_out.get(), m_config.items,
                                                                        static_cast<std::size_t>(m_config.n));
    BB_CUDA_CALL(cudaGetLastError());
  }

  void poison_output() override { BB_CUDA_CALL(cudaMemset(m_out.get(), 0xff, m_out.bytes())); }

  /// Exact counts per bin (expected_counts).
  verify_result verify() override {
    const expected_counts<Keys> want{static_cast<std::uint64_t>(m_config.n)};
    return verify_on_device(m_out.get(), m_out.size(), want, [&](std::size_t i, std::uint32_t got) {
      return "bin " + std::to_string(i) + " = " + std::to_string(got) + ", expected " +
             std::to_string(want.expected(i));
    });
  }

  [[nodiscard]] std::uint64_t bytes_moved() const override { return m_keys.bytes(); }
  [[nodiscard]] int smem_access_bytes() const override { return 4; }
  [[nodiscard]] std::uint64_t device_bytes() const override { return m_keys.bytes() + m_out.bytes(); }

private:
  config m_config;
  device_buffer<std::uint32_t> m_keys;
  device_buffer<std::uint32_t> m_out;
};

template <class Layout, class Keys> problem_factory factory() {
  return [](const nlohmann::json& params, std::uint64_t seed) -> std::unique_ptr<problem> {
    return std::make_unique<histogram_problem<Layout, Keys>>(checked_config(params), seed);
  };
}

/// histogram_kernel's requests: the zeroing stores, the atomics of every block (block b's keys
/// are those of block 0 shifted by whole rotations of 32 runs, so they are counted per key
/// pattern), the read-back loads of warp 0.
template <class Layout, class Keys> model::access_plan shared_access_plan(const nlohmann::json& params) {
  const config c = checked_config(params);
  const auto blocks = static_cast<std::uint64_t>(c.blocks());
  model::access_plan plan;
  plan.access_bytes = 4;
  for (int warp = 0; warp < k_warps; ++warp)
    for (int first = warp * 32; first < Layout::k_words; first += k_threads) {
      model::warp_access zero;
      zero.kind = model::access_kind::store;
      zero.active = 0;
      for (int lane = 0; lane < 32; ++lane) {
        zero.address[static_cast<std::size_t>(lane)] = static_cast<std::uint32_t>(first + lane) * 4;
        if (first + lane < Layout::k_words) zero.active |= 1u << lane;
      }
      plan.add(blocks, zero);
    }
  // Keys repeat every 32 * 32 elements: when a block covers whole periods every full block issues
  // block 0's atomics, else each full block is walked; the last, partial block always is, its
  // lanes past n inactive and its warps wholly past n issuing nothing.
  const auto n = static_cast<std::uint64_t>(c.n), per_block = static_cast<std::uint64_t>(c.per_block());
  const std::uint64_t full = n / per_block;
  const bool periodic = per_block % (32 * k_bins) == 0;
  auto add_block = [&](std::uint64_t b, std::uint64_t count) {
    for (int it = 0; it < c.items; ++it)
      for (int warp = 0; warp < k_warps; ++warp) {
        model::warp_access atom;
        atom.kind = model::access_kind::atom;
        atom.active = 0;
        for (int lane = 0; lane < 32; ++lane) {
          const std::uint64_t i = b * per_block + static_cast<std::uint64_t>(it) * k_threads +
                                  static_cast<std::uint64_t>(warp * 32 + lane);
          if (i >= n) continue;
          atom.active |= 1u << lane;
          atom.address[static_cast<std::size_t>(lane)] =
              static_cast<std::uint32_t>(Layout::word(warp, static_cast<int>(Keys::key(i)))) * 4;
        }
        plan.add(count, atom);
      }
  };
  if (full > 0 && periodic)
    add_block(0, full);
  else
    for (std::uint64_t b = 0; b < full; ++b) add_block(b, 1);
  if (n % per_block != 0) add_block(full, 1);
  for (int copy = 0; copy < Layout::k_copies; ++copy) {
    model::warp_access load;
    for (int lane = 0; lane < 32; ++lane)
      load.address[static_cast<std::size_t>(lane)] = static_cast<std::uint32_t>(Layout::word(copy, lane)) * 4;
    plan.add(blocks, load);
  }
  return plan;
}

} // namespace bb::histogram
