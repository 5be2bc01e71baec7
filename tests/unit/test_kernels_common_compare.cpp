// kernels/common/compare.hpp without a GPU: checks split into chunks and pieces count every wrong
// element once and report the first one, whatever the split.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/compare.hpp"

namespace {

// Element i is wrong where wrong[i] holds.
bb::verify_result check_range(const std::vector<bool>& wrong, std::size_t first, std::size_t count, std::size_t chunk) {
  return bb::host::count_mismatches_walk(
      count, chunk,
      [&](std::size_t begin, std::size_t end, auto report) {
        for (std::size_t j = begin; j < end; ++j)
          if (wrong[first + j]) report(j);
      },
      [&](std::size_t j) { return "out[" + std::to_string(first + j) + "]"; });
}

// The same check piece by piece, as verify_pieces adds them up.
bb::verify_result check_in_pieces(const std::vector<bool>& wrong, std::size_t piece, std::size_t chunk) {
  bb::verify_result total;
  for (std::size_t first = 0; first < wrong.size(); first += piece)
    bb::host::add_piece(total, check_range(wrong, first, std::min(piece, wrong.size() - first), chunk));
  return total;
}

TEST(kernels_common_compare, pieces_and_chunks_find_every_mismatch_and_the_first) {
  std::vector<bool> wrong(100000, false);
  for (const std::size_t i : {70001u, 70002u, 99999u, 40000u}) wrong[i] = true;
  for (const std::size_t piece : {100000u, 30000u, 1000u, 7u})
    for (const std::size_t chunk : {1u << 16, 1000u, 3u}) {
      const auto r = check_in_pieces(wrong, piece, chunk);
      EXPECT_FALSE(r.ok) << piece << " " << chunk;
      EXPECT_EQ(r.checked, wrong.size());
      EXPECT_EQ(r.mismatches, 4u);
      EXPECT_EQ(r.first_mismatch, "out[40000]") << piece << " " << chunk;
    }
}

TEST(kernels_common_compare, a_clean_output_passes_in_pieces) {
  const std::vector<bool> wrong(12345, false);
  const auto r = check_in_pieces(wrong, 1000, 64);
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.checked, 12345u);
  EXPECT_EQ(r.mismatches, 0u);
  EXPECT_TRUE(r.first_mismatch.empty());
}

TEST(kernels_common_compare, count_mismatches_keeps_its_behaviour) {
  const auto r = bb::host::count_mismatches(
      200000, [](std::size_t i) { return i % 70000 == 69999; }, [](std::size_t i) { return std::to_string(i); });
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.mismatches, 2u);
  EXPECT_EQ(r.first_mismatch, "69999");
}

} // namespace
