#pragma once
// The scan family's inputs and CPU reference (and, through index.hpp, its index functions), shared
// by the kernels (nvcc), the access plans and the host tests (the C++ compiler alone).
#include <cstdint>
#include <vector>

#include "kernels/common/host_device.hpp"
#include "kernels/common/host_parallel.hpp"
#include "kernels/common/seeded.hpp"
#include "kernels/scan/index.hpp"

namespace bb::scan {

/// Input i of seed `seed`: a full-range 32-bit integer, so the scans wrap and are checked exactly.
/// The GPU writes the input and the CPU check recomputes it from (seed, i).
BB_HD inline std::uint32_t integer_at(std::uint64_t seed, std::uint64_t i) {
  return static_cast<std::uint32_t>(host::chunked_bits_at(seed, i, 16) >> 32);
}

/// integer_at as a generator for generate_device.
struct input_integers {
  std::uint64_t seed;
  BB_HD std::uint32_t operator()(std::uint64_t i) const { return integer_at(seed, i); }
};

/// v[i] = integer_at(seed, i), on every core.
inline void fill_integers(std::vector<std::uint32_t>& v, std::uint64_t seed) {
  host::parallel_chunks(v.size(), std::size_t{1} << 16, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) v[i] = integer_at(seed, i);
  });
}

/// The exclusive scan of each block of 1024, as the kernels must produce it.
inline void reference_scan(const std::vector<std::uint32_t>& in, std::vector<std::uint32_t>& out) {
  out.resize(in.size());
  host::parallel_chunks(in.size(), k_elements * 64, [&](std::size_t begin, std::size_t end) {
    std::uint32_t sum = 0;
    for (std::size_t i = begin; i < end; ++i) {
      if (i % k_elements == 0) sum = 0;
      out[i] = sum;
      sum += in[i];
    }
  });
}

} // namespace bb::scan
