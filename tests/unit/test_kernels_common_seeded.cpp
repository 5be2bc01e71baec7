// kernels/common/seeded.hpp and uniform.hpp without a GPU: the position-indexed generators give
// the bits of the chunked host loops they replace, and keep the properties the checks rely on.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/common/seeded.hpp"
#include "kernels/common/uniform.hpp"
#include "kernels/scan/sweep.hpp"

namespace {

using bb::host::splitmix64;

// The fill the families ran before: one sequential splitmix64 stream per chunk of `chunk` outputs.
std::vector<std::uint64_t> chunked_streams(std::uint64_t seed, std::size_t count, std::size_t chunk) {
  std::vector<std::uint64_t> out(count);
  for (std::size_t begin = 0; begin < count; begin += chunk) {
    splitmix64 rng{seed ^ (begin / chunk) * 0xd1b54a32d192ed03ull};
    for (std::size_t i = begin; i < count && i < begin + chunk; ++i) out[i] = rng.next();
  }
  return out;
}

TEST(kernels_common_seeded, splitmix64_at_jumps_to_any_output_of_the_stream) {
  splitmix64 rng{12345};
  for (std::uint64_t k = 0; k < 1000; ++k) EXPECT_EQ(bb::host::splitmix64_at(12345, k), rng.next()) << k;
}

TEST(kernels_common_seeded, chunked_bits_match_the_chunk_by_chunk_fill) {
  const std::size_t count = 3 * (1 << 16) + 77; // two chunk boundaries and a partial last chunk
  const auto want = chunked_streams(99, count, 1 << 16);
  for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(bb::host::chunked_bits_at(99, i, 16), want[i]) << i;
}

TEST(kernels_common_seeded, scan_integers_are_the_old_inputs_and_full_range) {
  const std::size_t count = 2 * (1 << 16) + 5;
  const auto bits = chunked_streams(7, count, 1 << 16);
  std::vector<std::uint32_t> v(count);
  bb::scan::fill_integers(v, 7);
  std::size_t high = 0;
  for (std::size_t i = 0; i < count; ++i) {
    ASSERT_EQ(v[i], static_cast<std::uint32_t>(bits[i] >> 32)) << i;
    ASSERT_EQ(bb::scan::integer_at(7, i), v[i]) << i;
    high += v[i] >> 31;
  }
  // The scans must wrap mod 2^32: about half the inputs have the top bit set.
  EXPECT_NEAR(static_cast<double>(high) / count, 0.5, 0.01);
}

TEST(kernels_common_seeded, byte7_stream_is_the_old_reference_input) {
  // reference's old fill: chunks of 1 MiB, eight bytes per output, each masked to 7 bits, copied
  // little-endian; the last word of the buffer partly.
  const std::size_t bytes = (std::size_t{5} << 19) + 3;
  constexpr std::size_t k_chunk = 1 << 20;
  std::vector<unsigned char> old(bytes);
  for (std::size_t begin = 0; begin < bytes; begin += k_chunk) {
    splitmix64 rng{20261124 ^ (begin / k_chunk) * 0xd1b54a32d192ed03ull};
    const std::size_t end = std::min(bytes, begin + k_chunk);
    for (std::size_t i = begin; i < end; i += 8) {
      const std::uint64_t word = rng.next() & 0x7f7f7f7f7f7f7f7full;
      std::memcpy(&old[i], &word, std::min<std::size_t>(8, end - i));
    }
  }
  for (std::size_t i = 0; i < bytes; ++i) ASSERT_EQ(bb::host::byte7_at(20261124, i), old[i]) << i;
  for (std::size_t w = 0; w < bytes / 8; ++w) {
    std::uint64_t word = 0;
    std::memcpy(&word, &old[8 * w], 8);
    ASSERT_EQ(bb::host::byte7_word_at(20261124, w), word) << w;
  }
}

TEST(kernels_common_seeded, byte7_never_gives_the_poison_byte_and_uses_all_seven_bits) {
  std::vector<std::size_t> seen(256, 0);
  for (std::uint64_t i = 0; i < 1000000; ++i) ++seen[bb::host::byte7_at(3, i)];
  EXPECT_EQ(seen[0xff], 0u);
  for (int b = 0x80; b < 0x100; ++b) EXPECT_EQ(seen[static_cast<std::size_t>(b)], 0u) << b;
  for (int b = 0; b < 0x80; ++b) EXPECT_GT(seen[static_cast<std::size_t>(b)], 7000u) << b; // 1e6 / 128 = 7812
}

TEST(kernels_common_seeded, generators_depend_on_seed_and_position_alone) {
  std::size_t same_seed_other_position = 0, other_seed = 0;
  for (std::uint64_t i = 0; i < 10000; ++i) {
    EXPECT_EQ(bb::host::chunked_bits_at(5, i, 16), bb::host::chunked_bits_at(5, i, 16));
    EXPECT_EQ(bb::host::byte7_word_at(5, i), bb::host::byte7_word_at(5, i));
    other_seed += bb::host::chunked_bits_at(5, i, 16) == bb::host::chunked_bits_at(6, i, 16);
    same_seed_other_position += bb::host::chunked_bits_at(5, i, 16) == bb::host::chunked_bits_at(5, i + 1, 16);
  }
  EXPECT_EQ(other_seed, 0u);
  EXPECT_EQ(same_seed_other_position, 0u);
}

TEST(kernels_common_seeded, uniform_at_is_a_multiple_of_two_to_the_minus_23_in_minus_one_to_one) {
  double sum = 0;
  for (std::uint64_t i = 0; i < 1000000; ++i) {
    const float x = bb::host::uniform_at(11, 1000 + i);
    ASSERT_GE(x, -1.0f);
    ASSERT_LT(x, 1.0f);
    ASSERT_EQ(std::ldexp(x, 23), std::nearbyint(std::ldexp(x, 23))) << i;
    sum += x;
  }
  EXPECT_NEAR(sum / 1e6, 0.0, 0.005);
  EXPECT_EQ(bb::host::uniform_at(11, 5), bb::host::uniform_at(11, 5));
  EXPECT_NE(bb::host::uniform_at(11, 5), bb::host::uniform_at(12, 5));
}

} // namespace
