#pragma once
// Reduction family: each block sums its slice of n floats and writes one partial sum (one kernel,
// no second pass). The classic variants differ only in the shared-memory tree (Harris, "Optimizing
// Parallel Reduction in CUDA"): which threads add which word at each stride. The Tree structs of
// tree.hpp are what the kernel runs and what the bank model enumerates.
#include <algorithm>
#include <cmath>
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
#include "runner/launch/cuda_call.hpp"
#include "kernels/reduction/tree.hpp"
#include "kernels/reduction/kernel.cuh"
#include "runner/registry/registry.hpp"

namespace bb::reduction {

inline const family_info& family() {
  static const family_info f{"reduction",
                             "per-block sums of n floats: one kernel writes one partial sum per block",
                             {{"n", 16777216, "elements to sum (any positive count; the last block may be partial)"},
                              {"block", 256, "threads per block: a power of two from 32 to 1024"}}};
  return f;
}

/// A configuration's sizes: `items` consecutive elements per thread, block * items per block.
struct shape {
  std::int64_t n = 0;
  int block = 0;
  int items = 1;
  [[nodiscard]] std::int64_t per_block() const { return static_cast<std::int64_t>(block) * items; }
  [[nodiscard]] std::int64_t blocks() const { return (n + per_block() - 1) / per_block(); }
};

/// unsupported_parameter for sizes the kernels cannot take.
inline shape checked_shape(const nlohmann::json& params, int items) {
  shape s;
  s.n = param::in_range(params, "n", 1, std::int64_t{1} << 31, "2^31");
  const auto block = param::integer(params, "block");
  s.items = items;
  if (block < 32 || block > 1024 || (block & (block - 1)) != 0)
    throw unsupported_parameter("block = " + std::to_string(block) + " is not a power of two from 32 to 1024");
  s.block = static_cast<int>(block);
  return s;
}

// ---- the classic tree: one element per thread, then log2(block) steps through shared memory ----

/// The classic kernel's shared-memory requests: every block issues the same ones (threads past
/// the end of the input store a zero), so one block's are counted blocks() times.
template <class Tree> model::access_plan tree_access_plan(const nlohmann::json& params) {
  const shape sh = checked_shape(params, 1);
  const auto blocks = static_cast<std::uint64_t>(sh.blocks());
  model::access_plan plan;
  plan.access_bytes = sizeof(float);
  auto request = [](model::access_kind kind) {
    model::warp_access a;
    a.kind = kind;
    a.active = 0;
    return a;
  };
  const int warps = sh.block / 32;
  for (int w = 0; w < warps; ++w) {
    auto store = request(model::access_kind::store);
    for (int lane = 0; lane < 32; ++lane) {
      store.address[lane] = static_cast<std::uint32_t>(w * 32 + lane) * 4;
      store.active |= 1u << lane;
    }
    plan.add(blocks, store);
  }
  for (int step = 0; step < log2_exact(sh.block); ++step) {
    const int s = Tree::stride(step, sh.block);
    for (int w = 0; w < warps; ++w) {
      auto target = request(model::access_kind::load), partner = target;
      for (int lane = 0; lane < 32; ++lane) {
        const int tid = w * 32 + lane;
        if (!Tree::active(tid, s, sh.block)) continue;
        const int t = Tree::target(tid, s);
        target.address[lane] = static_cast<std::uint32_t>(t) * 4;
        partner.address[lane] = static_cast<std::uint32_t>(t + s) * 4;
        target.active |= 1u << lane;
        partner.active |= 1u << lane;
      }
      auto store = target;
      store.kind = model::access_kind::store;
      plan.add(blocks, target);  // sdata[t]
      plan.add(blocks, partner); // sdata[t + s]
      plan.add(blocks, store);   // sdata[t] = ...
    }
  }
  auto last = request(model::access_kind::load); // thread 0 reads sdata[0]
  last.active = 1;
  plan.add(blocks, last);
  return plan;
}

// ---- the shared problem: buffers, input generated on the GPU, per-block sums checked on the GPU ----

/// Partial sum j checked against block j's inputs, regenerated and added in double in input order:
/// `bound` (depth * unit roundoff) times their sum of magnitudes is the tolerance.
struct block_sum_check {
  struct sums_t {
    double sum = 0, magnitude = 0;
  };
  std::uint64_t seed;
  std::int64_t n;
  std::int64_t per_block;
  double bound;
  BB_HD sums_t sums(std::size_t j) const {
    const auto begin = static_cast<std::int64_t>(j) * per_block;
    const std::int64_t end = begin + per_block < n ? begin + per_block : n;
    sums_t s;
    for (std::int64_t i = begin; i < end; ++i) {
      const float x = host::uniform_at(seed, static_cast<std::uint64_t>(i));
      s.sum += x;
      s.magnitude += fabs(x);
    }
    return s;
  }
  // NaN (the poison) fails: the comparison is written so that it must hold.
  BB_HD bool operator()(std::size_t j, float got) const {
    const sums_t s = sums(j);
    return fabs(static_cast<double>(got) - s.sum) <= bound * s.magnitude;
  }
};

/// A variant: `k_items` elements per thread, a launcher, and the longest chain of float additions
/// any input passes through on its way to a partial sum (for the verification tolerance).
template <class Variant> class reduction_problem final : public in_out_problem<float> {
public:
  reduction_problem(const nlohmann::json& params, std::uint64_t seed)
      : reduction_problem(checked_shape(params, Variant::k_items), seed) {}
  reduction_problem(const shape& s, std::uint64_t seed)
      : in_out_problem(static_cast<std::size_t>(s.n), static_cast<std::size_t>(s.blocks())), m_shape(s), m_seed(seed) {
    fill_uniform_device(m_in.get(), m_in.size(), seed);
  }

  void launch(void* stream) override {
    Variant::launch(m_in.get(), m_out.get(), m_shape, static_cast<cudaStream_t>(stream));
  }

  // poison_output (in_out_problem): every byte 0xff, every float becomes a NaN.

  /// On the GPU: each partial sum against its block's sum, recomputed in double from the generator.
  verify_result verify() override {
    // Any order of float additions in which no term passes through more than d additions is off
    // the exact sum by at most gamma_d * sum|x| (Higham, Accuracy and Stability, eq. 4.4),
    // gamma_d ~ d * 2^-24; the reference is summed in double, exact enough to stand for the
    // true sum. d + 1 absorbs gamma's denominator and the double rounding.
    const double depth = Variant::k_items + log2_exact(m_shape.block) + 1;
    const block_sum_check want{m_seed, m_shape.n, m_shape.per_block(), depth * std::ldexp(1.0, -24)};
    return verify_on_device(m_out.get(), m_out.size(), want, [&](std::size_t j, float got) {
      return "partial[" + std::to_string(j) + "] = " + std::to_string(got) + ", expected " +
             std::to_string(want.sums(j).sum);
    });
  }

  [[nodiscard]] int smem_access_bytes() const override { return sizeof(float); }

private:
  shape m_shape;
  std::uint64_t m_seed = 0;
};

/// The classic variants' launcher: one element per thread, block floats of dynamic shared memory.
template <class Tree> struct tree_variant {
  static constexpr int k_items = 1;
  static void launch(const float* in, float* out, const shape& sh, cudaStream_t stream) {
    tree_kernel<Tree>
        <<<static_cast<unsigned>(sh.blocks()), sh.block, sh.block * sizeof(float), stream>>>(in, out, sh.n);
    BB_CUDA_CALL(cudaGetLastError());
  }
};

template <class Variant> problem_factory factory() {
  return [](const nlohmann::json& params, std::uint64_t seed) -> std::unique_ptr<problem> {
    return std::make_unique<reduction_problem<Variant>>(params, seed);
  };
}

} // namespace bb::reduction
