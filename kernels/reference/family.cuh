#pragma once
// Reference family: how fast this GPU moves device memory to device memory, so that every
// bandwidth-bound variant can be read as a share of it. Variants differ only in who moves the
// bytes (a copy kernel, or cudaMemcpyAsync); neither touches shared memory.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include <cuda_runtime.h>

#include "kernels/common/params.hpp"
#include "kernels/common/device_buffer.cuh"
#include "kernels/common/device_check.cuh"
#include "kernels/common/device_generate.cuh"
#include "kernels/common/seeded.hpp"
#include "kernels/reference/kernel.cuh"
#include "runner/launch/cuda_call.hpp"
#include "runner/registry/registry.hpp"

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
  return static_cast<std::uint64_t>(
      param::in_range(params, "bytes", 1, static_cast<std::int64_t>(k_max_bytes), "2^34"));
}

/// Seeded input bytes with the top bit clear, so the 0xff poison never equals an input byte:
/// host::byte7_word_at, generated eight bytes at a time.
struct input_words {
  std::uint64_t seed;
  BB_HD std::uint64_t operator()(std::uint64_t w) const { return host::byte7_word_at(seed, w); }
};
struct input_bytes {
  std::uint64_t seed;
  BB_HD unsigned char operator()(std::uint64_t i) const { return host::byte7_at(seed, i); }
};

/// How many bytes of output word w are wrong (0 to 8): the check on the GPU.
struct wrong_word_bytes {
  std::uint64_t seed;
  BB_HD unsigned operator()(std::size_t w, std::uint64_t got) const {
    const std::uint64_t diff = got ^ host::byte7_word_at(seed, w);
    unsigned wrong = 0;
    for (int k = 0; k < 8; ++k) wrong += ((diff >> (8 * k)) & 0xff) != 0 ? 1u : 0u;
    return wrong;
  }
};

/// 1 where output byte first + i, one of the bytes after the last whole word, is wrong.
struct wrong_tail_byte {
  std::uint64_t seed;
  std::uint64_t first;
  BB_HD unsigned operator()(std::size_t i, unsigned char got) const {
    return got != host::byte7_at(seed, first + i) ? 1u : 0u;
  }
};

/// Buffers, seeded input and the byte-exact check shared by both variants; Mover enqueues the copy.
template <class Mover> class copy_problem final : public problem {
public:
  copy_problem(const nlohmann::json& params, std::uint64_t seed) : m_seed(seed) {
    m_bytes = checked_bytes(params);
    m_in = device_buffer<unsigned char>(m_bytes);
    m_out = device_buffer<unsigned char>(m_bytes);
    const std::uint64_t words = m_bytes / 8; // cudaMalloc'd buffers are 256-byte aligned
    generate_device(reinterpret_cast<std::uint64_t*>(m_in.get()), words, input_words{seed});
    generate_device(m_in.get() + words * 8, m_bytes % 8, input_bytes{seed}, words * 8);
    m_mover = Mover(m_bytes);
  }

  void launch(void* stream) override {
    m_mover.enqueue(m_in.get(), m_out.get(), m_bytes, static_cast<cudaStream_t>(stream));
  }

  void poison_output() override { BB_CUDA_CALL(cudaMemset(m_out.get(), 0xff, m_bytes)); }

  /// Byte-exact, on the GPU: eight bytes at a time, then the m_bytes % 8 bytes of the tail one by
  /// one; the wrong bytes are counted, and the first is worded.
  verify_result verify() override {
    const std::uint64_t words = m_bytes / 8;
    const device_tally head = tally_on_device(reinterpret_cast<const std::uint64_t*>(m_out.get()), words,
                                              wrong_word_bytes{m_seed});
    const device_tally tail = tally_on_device(m_out.get() + words * 8, m_bytes % 8, wrong_tail_byte{m_seed, words * 8});
    verify_result r;
    r.checked = m_bytes;
    r.mismatches = head.wrong + tail.wrong;
    r.ok = r.mismatches == 0;
    if (r.ok) return r;
    std::uint64_t first = 0; // the lowest wrong byte of the first wrong word, else of the tail
    if (head.wrong != 0) {
      const std::uint64_t diff = read_element(reinterpret_cast<const std::uint64_t*>(m_out.get()), head.first) ^
                                 host::byte7_word_at(m_seed, head.first);
      first = head.first * 8;
      while (((diff >> (8 * (first % 8))) & 0xff) == 0) ++first;
    } else {
      first = words * 8 + tail.first;
    }
    r.first_mismatch = "out[" + std::to_string(first) + "] = " + std::to_string(read_element(m_out.get(), first)) +
                       ", expected " + std::to_string(host::byte7_at(m_seed, first));
    return r;
  }

  [[nodiscard]] std::uint64_t bytes_moved() const override { return 2 * m_bytes; }
  /// The copy kernel's per-lane width (16-byte vectors); it makes no shared-memory request at all.
  [[nodiscard]] int smem_access_bytes() const override { return 16; }
  [[nodiscard]] std::uint64_t device_bytes() const override { return 2 * m_bytes; }
  [[nodiscard]] int kernels_per_launch() const override { return Mover::k_kernels; }

private:
  std::uint64_t m_bytes = 0;
  std::uint64_t m_seed = 0;
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
