#pragma once
/// The seeded input generator every family uses, callable from host and device code alike: the
/// i-th value depends on (seed, i) alone, so inputs can be generated on the GPU (no host copy of a
/// 1 GiB input) and a check, on the GPU or the CPU, can recompute any element without keeping it.
#include <cstdint>

#include "kernels/common/host_device.hpp"

namespace bb::host {

/// splitmix64: a fast, well-mixed 64-bit generator.
struct splitmix64 {
  std::uint64_t state;
  BB_HD std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

/// The i-th input value of seed `seed`: a uniform float in [-1, 1), a multiple of 2^-23, computed
/// with integer operations and one exact conversion, so host and device produce the same bits.
BB_HD inline float uniform_at(std::uint64_t seed, std::uint64_t i) {
  splitmix64 rng{seed * 0xd1b54a32d192ed03ull + i};
  return static_cast<float>(static_cast<std::int64_t>(rng.next() >> 40) - (1 << 23)) * (1.0f / (1 << 23));
}

} // namespace bb::host
