#pragma once
/// Position-indexed forms of the seeded generators that are not uniform_at: element i is a pure
/// function of (seed, i), callable from host and device code, so inputs are written on the GPU and
/// a check, on the GPU or the CPU, recomputes any element. They give the bits the host loops they
/// replace gave, which filled chunk by chunk, one splitmix64 stream per chunk started at
/// seed ^ chunk * k_chunk_salt.
#include <cstdint>

#include "kernels/common/host_device.hpp"
#include "kernels/common/uniform.hpp"

namespace bb::host {

inline constexpr std::uint64_t k_splitmix_gamma = 0x9e3779b97f4a7c15ull;
inline constexpr std::uint64_t k_chunk_salt = 0xd1b54a32d192ed03ull;

/// Output k (from 0) of the splitmix64 stream whose state starts at `state`: the state only ever
/// adds the gamma, so any position is one step away.
BB_HD inline std::uint64_t splitmix64_at(std::uint64_t state, std::uint64_t k) {
  splitmix64 rng{state + k * k_splitmix_gamma};
  return rng.next();
}

/// Element i of a stream cut into chunks of 2^log2_chunk elements, each chunk its own stream.
BB_HD inline std::uint64_t chunked_bits_at(std::uint64_t seed, std::uint64_t i, int log2_chunk) {
  const std::uint64_t chunk = i >> log2_chunk;
  return splitmix64_at(seed ^ chunk * k_chunk_salt, i - (chunk << log2_chunk));
}

/// Word w of the 7-bit byte stream: eight bytes, each with its top bit clear, so no byte ever
/// equals a 0xff poison; chunks of 2^17 words (1 MiB).
BB_HD inline std::uint64_t byte7_word_at(std::uint64_t seed, std::uint64_t w) {
  return chunked_bits_at(seed, w, 17) & 0x7f7f7f7f7f7f7f7full;
}

/// Byte i of the 7-bit byte stream, as a little-endian copy of its words lays it out.
BB_HD inline std::uint8_t byte7_at(std::uint64_t seed, std::uint64_t i) {
  return static_cast<std::uint8_t>(byte7_word_at(seed, i >> 3) >> (8 * (i & 7)));
}

} // namespace bb::host
