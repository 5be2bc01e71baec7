#pragma once
// Reference family: how fast this GPU moves device memory to device memory, so that every
// bandwidth-bound variant can be read as a share of it. Variants differ only in who moves the
// bytes (a copy kernel, or cudaMemcpyAsync); neither touches shared memory.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "common/device_buffer.cuh"
#include "common/host_parallel.hpp"
#include "launch/cuda_call.hpp"
#include "registry/registry.hpp"

namespace bb::reference {

inline constexpr std::uint64_t k_max_bytes = 1ull << 34; // 16 GiB: twice that must fit the device

inline const family_info& family() {
  static const family_info f{
      "reference",
      "device-to-device copy of `bytes` bytes: the bandwidth other families are measured against",
      {{"bytes", 268435456, "bytes to copy (any positive count; 256 MiB by default)"}}};
  return f;
}

inline std::uint64_t checked_bytes(const nlohmann::json& params) {
  const auto bytes = params.at("bytes").get<std::int64_t>();
  if (bytes <= 0 || static_cast<std::uint64_t>(bytes) > k_max_bytes)
    throw unsupported_parameter("bytes = " + std::to_string(bytes) + " is outside 1..2^34");
  return static_cast<std::uint64_t>(bytes);
}

/// Seeded input bytes with the top bit clear, so the 0xff poison never equals an input byte.
inline void fill_bytes(std::vector<unsigned char>& v, std::uint64_t seed) {
  constexpr std::size_t k_chunk = 1 << 20;
  host::parallel_chunks(v.size(), k_chunk, [&](std::size_t begin, std::size_t end) {
    host::splitmix64 rng{seed ^ (begin / k_chunk) * 0xd1b54a32d192ed03ull};
    for (std::size_t i = begin; i < end; i += 8) {
      const std::uint64_t word = rng.next() & 0x7f7f7f7f7f7f7f7full;
      std::memcpy(&v[i], &word, std::min<std::size_t>(8, end - i));
    }
  });
}

/// Buffers, seeded input and the byte-exact check shared by both variants; Mover enqueues the copy.
template <class Mover> class copy_problem final : public problem {
public:
  copy_problem(const nlohmann::json& params, std::uint64_t seed) {
    m_bytes = checked_bytes(params);
    m_host_in.resize(m_bytes);
    fill_bytes(m_host_in, seed);
    m_in = device_buffer<unsigned char>(m_bytes);
    m_out = device_buffer<unsigned char>(m_bytes);
    BB_CUDA_CALL(cudaMemcpy(m_in.get(), m_host_in.data(), m_bytes, cudaMemcpyHostToDevice));
    m_mover = Mover(m_bytes);
  }

  void launch(void* stream) override {
    m_mover.enqueue(m_in.get(), m_out.get(), m_bytes, static_cast<cudaStream_t>(stream));
  }

  void poison_output() override { BB_CUDA_CALL(cudaMemset(m_out.get(), 0xff, m_bytes)); }

  verify_result verify() override {
    std::vector<unsigned char> got(m_bytes);
    BB_CUDA_CALL(cudaMemcpy(got.data(), m_out.get(), m_bytes, cudaMemcpyDeviceToHost));
    constexpr std::size_t k_chunk = 1 << 22;
    const std::size_t chunks = (m_bytes + k_chunk - 1) / k_chunk;
    std::vector<std::uint64_t> bad(chunks, 0);
    std::vector<std::size_t> first(chunks, SIZE_MAX);
    host::parallel_chunks(m_bytes, k_chunk, [&](std::size_t begin, std::size_t end) {
      if (std::memcmp(&got[begin], &m_host_in[begin], end - begin) == 0) return;
      const std::size_t c = begin / k_chunk;
      for (std::size_t i = begin; i < end; ++i)
        if (got[i] != m_host_in[i]) {
          ++bad[c];
          first[c] = std::min(first[c], i);
        }
    });
    verify_result r;
    r.checked = m_bytes;
    for (std::size_t c = 0; c < chunks; ++c) {
      r.mismatches += bad[c];
      if (bad[c] != 0 && r.first_mismatch.empty())
        r.first_mismatch = "out[" + std::to_string(first[c]) + "] = " + std::to_string(got[first[c]]) +
                           ", expected " + std::to_string(m_host_in[first[c]]);
    }
    r.ok = r.mismatches == 0;
    return r;
  }

  [[nodiscard]] std::uint64_t bytes_moved() const override { return 2 * m_bytes; }
  /// The copy kernel's per-lane width (16-byte vectors); it makes no shared-memory request at all.
  [[nodiscard]] int smem_access_bytes() const override { return 16; }
  [[nodiscard]] std::uint64_t device_bytes() const override { return 2 * m_bytes; }
  [[nodiscard]] int kernels_per_launch() const override { return Mover::k_kernels; }

private:
  std::uint64_t m_bytes = 0;
  std::vector<unsigned char> m_host_in;
  device_buffer<unsigned char> m_in;
  device_buffer<unsigned char> m_out;
  Mover m_mover;
};

template <class Mover> problem_factory factory() {
  return [](const nlohmann::json& params, std::uint64_t seed) -> std::unique_ptr<problem> {
    return std::make_unique<copy_problem<Mover>>(params, seed);
  };
}

/// No shared-memory request at any size: the bank model predicts zero of everything.
inline model::access_plan no_shared_access(const nlohmann::json& params) {
  checked_bytes(params);
  model::access_plan plan;
  plan.access_bytes = 16;
  return plan;
}

} // namespace bb::reference
