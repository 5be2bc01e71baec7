#pragma once
// Scan family: exclusive prefix sums of 32-bit unsigned integers (mod 2^32), one independent scan
// per block of 1024 elements, in one kernel (GPU Gems 3, ch. 39). Variants differ in the
// shared-memory algorithm: Hillis-Steele double-buffered (log n steps of n adds), Blelloch's
// work-efficient up- and down-sweep, and Blelloch with the index + index / 32 padding.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "kernels/common/params.hpp"
#include "kernels/common/in_out_problem.cuh"
#include "kernels/common/device_buffer.cuh"
#include "kernels/common/device_check.cuh"
#include "kernels/common/device_generate.cuh"
#include "runner/launch/cuda_call.hpp"
#include "runner/registry/registry.hpp"
#include "kernels/scan/kernel.cuh"
#include "kernels/scan/sweep.hpp"

namespace bb::scan {

inline const family_info& family() {
  static const family_info f{"scan",
                             "exclusive prefix sums of unsigned 32-bit integers, one scan per block of 1024 elements",
                             {{"n", 16777216, "elements (any positive count; the last block's scan may be partial)"}}};
  return f;
}

inline std::int64_t checked_n(const nlohmann::json& params) {
  return param::in_range(params, "n", 1, std::int64_t{1} << 31, "2^31");
}

inline std::int64_t blocks_of(std::int64_t n) { return (n + k_elements - 1) / k_elements; }

// ---- Blelloch ----

/// Whether every level-0 pair (elements 2t and 2t + 1) sits in adjacent words, the first at an
/// even word: then nvcc (13.0, sm_90; cuobjdump -sass) reads the pair with one 8-byte LDS.64 in
/// the up-sweep, and reads and writes it with one LDS.64 and one STS.64 in the down-sweep.
template <class Layout> constexpr bool level0_pairs_are_8_byte_words() {
  for (int t = 0; t < k_elements / 2; ++t) {
    const int ai = Layout::offset(sweep_ai(t, 1)), bi = Layout::offset(sweep_bi(t, 1));
    if (bi != ai + 1 || ai % 2 != 0) return false;
  }
  return true;
}

/// blelloch_kernel's shared requests for one block in which `valid` elements are inside the input
/// (the final reads are guarded), added `count` times.
template <class Layout> void add_blelloch_block(model::access_plan& plan, std::uint64_t count, std::int64_t valid) {
  constexpr int k_threads = k_elements / 2;
  auto request = [](model::access_kind kind) {
    model::warp_access r;
    r.kind = kind;
    r.active = 0;
    return r;
  };
  auto word = [](int element) { return static_cast<std::uint32_t>(Layout::offset(element)) * 4; };
  for (int w = 0; w < k_threads / 32; ++w) {
    auto sa = request(model::access_kind::store), sb = sa, la = request(model::access_kind::load), lb = la;
    for (int lane = 0; lane < 32; ++lane) {
      const int t = w * 32 + lane, a = Layout::first(t), b = Layout::second(t);
      sa.address[lane] = la.address[lane] = word(a);
      sb.address[lane] = lb.address[lane] = word(b);
      sa.active |= 1u << lane;
      sb.active |= 1u << lane;
      if (a < valid) la.active |= 1u << lane;
      if (b < valid) lb.active |= 1u << lane;
    }
    plan.add(count, sa);
    plan.add(count, sb);
    plan.add(count, la);
    plan.add(count, lb);
  }
  constexpr bool paired_level0 = level0_pairs_are_8_byte_words<Layout>();
  for (int level = 0; level < k_log_elements; ++level) {
    const int offset = 1 << level;
    for (int w = 0; w < k_threads / 32; ++w) {
      auto ai = request(model::access_kind::load), bi = ai;
      for (int lane = 0; lane < 32; ++lane) {
        const int t = w * 32 + lane;
        if (t >= sweep_threads(level)) continue;
        ai.address[lane] = word(sweep_ai(t, offset));
        bi.address[lane] = word(sweep_bi(t, offset));
        ai.active |= 1u << lane;
        bi.active |= 1u << lane;
      }
      auto ai_store = ai, bi_store = bi;
      ai_store.kind = bi_store.kind = model::access_kind::store;
      if (level == 0 && paired_level0) {
        auto pair = ai; // the 8 bytes at temp[ai], temp[bi]
        pair.width = 8;
        auto pair_store = pair;
        pair_store.kind = model::access_kind::store;
        plan.add(count, pair);       // up-sweep: temp[ai], temp[bi]
        plan.add(count, bi_store);   // up-sweep: temp[bi] += ...
        plan.add(count, pair);       // down-sweep: left, right
        plan.add(count, pair_store); // down-sweep: both written back
        continue;
      }
      plan.add(count, ai);       // up-sweep: temp[ai]
      plan.add(count, bi);       // up-sweep: temp[bi]
      plan.add(count, bi_store); // up-sweep: temp[bi] += ...
      plan.add(count, ai);       // down-sweep: left = temp[ai]
      plan.add(count, bi);       // down-sweep: right = temp[bi]
      plan.add(count, ai_store); // down-sweep: temp[ai] = right
      plan.add(count, bi_store); // down-sweep: temp[bi] = right + left
    }
  }
  auto root = request(model::access_kind::store);
  root.active = 1;
  root.address[0] = word(k_elements - 1);
  plan.add(count, root);
}

template <class Layout> model::access_plan blelloch_access_plan(const nlohmann::json& params) {
  const std::int64_t n = checked_n(params);
  model::access_plan plan;
  plan.access_bytes = 4;
  if (n / k_elements > 0) add_blelloch_block<Layout>(plan, static_cast<std::uint64_t>(n / k_elements), k_elements);
  if (n % k_elements != 0) add_blelloch_block<Layout>(plan, 1, n % k_elements);
  return plan;
}

// ---- the shared problem ----

/// The check: thread b walks block b of 1024 outputs against the running sum of its inputs,
/// regenerated from (seed, i), and every thread of the warp adds what it found to the tally.
/// (A template, so that each variant's translation unit may hold it.)
template <int Elements> __global__ void check_kernel(const std::uint32_t* __restrict__ got, std::size_t count,
                                                     std::uint64_t seed, device_tally* tally) {
  const std::size_t begin = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) * Elements;
  unsigned long long wrong = 0, first = ULLONG_MAX;
  std::uint32_t sum = 0;
  for (std::size_t i = begin; i < count && i < begin + Elements; ++i) {
    if (got[i] != sum && wrong++ == 0) first = i;
    sum += integer_at(seed, i);
  }
  detail::warp_add_to_tally(wrong, first, tally);
}

/// Variant: k_threads per block and a launcher; every variant scans blocks of 1024 elements.
template <class Variant> class scan_problem final : public in_out_problem<std::uint32_t> {
public:
  scan_problem(const nlohmann::json& params, std::uint64_t seed) : scan_problem(checked_n(params), seed) {}
  scan_problem(std::int64_t n, std::uint64_t seed)
      : in_out_problem(static_cast<std::size_t>(n), static_cast<std::size_t>(n)), m_n(n), m_seed(seed) {
    generate_device(m_in.get(), m_in.size(), input_integers{seed});
  }

  void launch(void* stream) override {
    Variant::launch(m_in.get(), m_out.get(), m_n, static_cast<cudaStream_t>(stream));
  }

  verify_result verify() override {
    // Exact, on the GPU: one thread walks each block's running sum (check_kernel). An element the
    // kernel never writes keeps the poison 0xffffffff and passes only where its prefix sum happens
    // to be that value (probability 2^-32 per element).
    const std::size_t count = m_out.size();
    const auto blocks = static_cast<std::size_t>(blocks_of(m_n));
    const device_tally t = tally_with([&](device_tally* tally) {
      constexpr int k_threads = 256;
      check_kernel<k_elements>
          <<<static_cast<unsigned>((blocks + k_threads - 1) / k_threads), k_threads>>>(m_out.get(), count, m_seed,
                                                                                       tally);
    });
    verify_result r;
    r.checked = count;
    r.mismatches = t.wrong;
    r.ok = t.wrong == 0;
    if (t.wrong != 0) {
      const auto i = static_cast<std::size_t>(t.first);
      std::uint32_t expected = 0; // element i's prefix within its block
      for (std::size_t k = i - i % k_elements; k < i; ++k) expected += integer_at(m_seed, k);
      r.first_mismatch = "out[" + std::to_string(i) + "] = " + std::to_string(read_element(m_out.get(), i)) +
                         ", expected " + std::to_string(expected);
    }
    return r;
  }

  [[nodiscard]] int smem_access_bytes() const override { return 4; }

private:
  std::int64_t m_n = 0;
  std::uint64_t m_seed = 0;
};

template <class Layout> struct blelloch_variant {
  static void launch(const std::uint32_t* in, std::uint32_t* out, std::int64_t n, cudaStream_t stream) {
    blelloch_kernel<Layout><<<static_cast<unsigned>(blocks_of(n)), k_elements / 2, 0, stream>>>(in, out, n);
    BB_CUDA_CALL(cudaGetLastError());
  }
};

template <class Variant> problem_factory factory() {
  return [](const nlohmann::json& params, std::uint64_t seed) -> std::unique_ptr<problem> {
    return std::make_unique<scan_problem<Variant>>(params, seed);
  };
}

} // namespace bb::scan
