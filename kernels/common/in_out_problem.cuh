#pragma once
// The problem most families pose: one input buffer the kernel reads and one output buffer it
// writes. The base owns both, poisons the output before a verified launch, counts the bytes, and
// checks the output on the GPU; a family states its launch, its check and its access width.
#include <cstddef>
#include <cstdint>
#include <string>

#include <cuda_runtime.h>

#include "kernels/common/device_buffer.cuh"
#include "kernels/common/device_check.cuh"
#include "runner/launch/cuda_call.hpp"
#include "runner/registry/registry.hpp"

namespace bb {

template <class In, class Out = In> class in_out_problem : public problem {
public:
  void poison_output() override { BB_CUDA_CALL(cudaMemset(m_out.get(), 0xff, m_out.bytes())); }

  /// The input read once and the output written once.
  [[nodiscard]] std::uint64_t bytes_moved() const override { return m_in.bytes() + m_out.bytes(); }
  [[nodiscard]] std::uint64_t device_bytes() const override { return m_in.bytes() + m_out.bytes(); }

protected:
  /// Allocates both buffers, the input first; the family fills the input.
  in_out_problem(std::size_t in_count, std::size_t out_count) : m_in(in_count), m_out(out_count) {}

  /// Every output element against `want` (want(i, got) says whether it is right, want.expected(i)
  /// what it should be), on the GPU; the first wrong one reads "out[i] = got, expected e".
  template <class Want> verify_result verify_each(const Want& want) {
    return verify_on_device(m_out.get(), m_out.size(), want, [&](std::size_t i, Out got) {
      return "out[" + std::to_string(i) + "] = " + std::to_string(got) + ", expected " +
             std::to_string(want.expected(i));
    });
  }

  device_buffer<In> m_in;
  device_buffer<Out> m_out;
};

} // namespace bb
