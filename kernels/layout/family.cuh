#pragma once
// Layout family: n particles {x, y, z, pad} (16 bytes) pass through shared memory, 256 per block,
// and each thread writes x + y + z of its own particle. Variants differ in how shared memory holds
// them (Layout): an array of structs, read field by field or as one float4, or a structure of arrays.
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
#include "kernels/layout/kernel.cuh"
#include "runner/launch/cuda_call.hpp"
#include "runner/registry/registry.hpp"

namespace bb::layout {

inline constexpr std::int64_t k_max_n = 1 << 26; // 1 GiB of particles

inline const family_info& family() {
  static const family_info f{
      "layout",
      "16-byte particles {x, y, z, pad} in shared memory: array of structs read field by field or as "
      "float4, vs structure of arrays",
      {{"n", 1 << 22, "particles (any positive count; the last block is partly full)"}}};
  return f;
}

inline int checked_n(const nlohmann::json& params) {
  return static_cast<int>(param::in_range(params, "n", 1, k_max_n));
}

/// Buffers, seeded inputs, launch and the check shared by every layout variant.
/// Output i: x + y + z of particle i, field f of which is uniform_at(seed, 4 i + f); host or device.
struct field_sum {
  std::uint64_t seed;
  BB_HD float expected(std::size_t i) const {
    return (host::uniform_at(seed, 4 * i) + host::uniform_at(seed, 4 * i + 1)) + host::uniform_at(seed, 4 * i + 2);
  }
  BB_HD bool operator()(std::size_t i, float got) const { return same_bytes(got, expected(i)); }
};

template <class Layout> class layout_problem final : public in_out_problem<float4, float> {
public:
  layout_problem(const nlohmann::json& params, std::uint64_t seed) : layout_problem(checked_n(params), seed) {}
  /// Field f of particle i is uniform_at(seed, 4 i + f): the particles are 4n consecutive floats.
  layout_problem(int n, std::uint64_t seed)
      : in_out_problem(static_cast<std::size_t>(n), static_cast<std::size_t>(n)), m_n(n), m_seed(seed) {
    fill_uniform_device(reinterpret_cast<float*>(m_in.get()), 4 * m_in.size(), seed);
  }

  void launch(void* stream) override {
    const unsigned blocks = static_cast<unsigned>((m_n + k_block - 1) / k_block);
    layout_kernel<Layout><<<blocks, k_block, 0, static_cast<cudaStream_t>(stream)>>>(m_in.get(), m_out.get(), m_n);
    BB_CUDA_CALL(cudaGetLastError());
  }

  /// Bit-exact, on the GPU: the kernel adds (x + y) + z in float as the check does (no FMA: there
  /// is no multiply).
  verify_result verify() override { return verify_each(field_sum{m_seed}); }

  [[nodiscard]] int smem_access_bytes() const override { return Layout::k_vector_load ? 16 : 4; }

private:
  int m_n = 0;
  std::uint64_t m_seed = 0;
};

/// layout_kernel's shared-memory requests, from Layout::offset: per warp, the stores of
/// store_particle and the loads of load_particle, with the lanes past n inactive in the last block.
template <class Layout> model::access_plan shared_access_plan(const nlohmann::json& params) {
  const int n = checked_n(params);
  model::access_plan plan;
  plan.access_bytes = Layout::k_vector_load ? 16 : 4;
  struct block_kind {
    int particles;       // valid particles in the block
    std::uint64_t count; // blocks like it
  };
  std::vector<block_kind> kinds;
  if (n >= k_block) kinds.push_back({k_block, static_cast<std::uint64_t>(n / k_block)});
  if (n % k_block != 0) kinds.push_back({n % k_block, 1});
  auto request = [](model::access_kind kind, int width, int warp, int field, std::uint32_t active) {
    model::warp_access a;
    a.kind = kind;
    a.width = width;
    a.active = active;
    for (int lane = 0; lane < 32; ++lane)
      a.address[static_cast<std::size_t>(lane)] = static_cast<std::uint32_t>(Layout::offset(warp * 32 + lane, field));
    return a;
  };
  for (const block_kind& b : kinds)
    for (int warp = 0; warp < k_block / 32; ++warp) {
      const int valid = b.particles - warp * 32;
      if (valid <= 0) break;
      const std::uint32_t active = valid >= 32 ? 0xffffffffu : (1u << valid) - 1;
      if (Layout::k_struct_access) {
        plan.add(b.count, request(model::access_kind::store, 16, warp, 0, active));
      } else {
        for (int field = 0; field < 3; ++field)
          plan.add(b.count, request(model::access_kind::store, 4, warp, field, active));
      }
      if (Layout::k_vector_load) {
        plan.add(b.count, request(model::access_kind::load, 16, warp, 0, active));
      } else {
        for (int field = 0; field < 3; ++field)
          plan.add(b.count, request(model::access_kind::load, 4, warp, field, active));
      }
    }
  return plan;
}

template <class Layout> problem_factory factory() {
  return [](const nlohmann::json& params, std::uint64_t seed) -> std::unique_ptr<problem> {
    return std::make_unique<layout_problem<Layout>>(params, seed);
  };
}

} // namespace bb::layout
