// The process's cache of source variants' inputs and reference outputs: a byte budget, the least
// recently used entry dropped first, handles that outlive their entries.
#include <gtest/gtest.h>

#include "runner/source/shared_bytes.hpp"

namespace {

using bb::source::shared_bytes;

shared_bytes::blocks bytes(std::size_t n, unsigned char fill) { return {std::vector<unsigned char>(n, fill)}; }

TEST(source_shared_bytes, keeps_what_fits_and_finds_it_again) {
  shared_bytes cache(100);
  EXPECT_EQ(cache.find("a"), nullptr);
  const auto a = cache.keep("a", bytes(40, 1));
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(cache.find("a"), a); // the same bytes, not a copy
  EXPECT_EQ(cache.held_bytes(), 40u);
  EXPECT_EQ(cache.find("a")->front().size(), 40u);
}

TEST(source_shared_bytes, drops_the_least_recently_used_to_make_room) {
  shared_bytes cache(100);
  cache.keep("a", bytes(40, 1));
  cache.keep("b", bytes(40, 2));
  ASSERT_NE(cache.find("a"), nullptr); // a is now more recent than b
  cache.keep("c", bytes(40, 3));       // 120 > 100: b goes
  EXPECT_EQ(cache.find("b"), nullptr);
  EXPECT_NE(cache.find("a"), nullptr);
  EXPECT_NE(cache.find("c"), nullptr);
  EXPECT_EQ(cache.held_bytes(), 80u);
  EXPECT_EQ(cache.entries(), 2u);
}

TEST(source_shared_bytes, an_entry_over_the_budget_is_returned_but_not_kept) {
  shared_bytes cache(100);
  cache.keep("a", bytes(60, 1));
  const auto big = cache.keep("big", bytes(101, 9));
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(big->front()[100], 9);
  EXPECT_EQ(cache.find("big"), nullptr);
  EXPECT_NE(cache.find("a"), nullptr); // nothing was dropped for it
}

TEST(source_shared_bytes, a_handle_outlives_its_dropped_entry) {
  shared_bytes cache(50);
  const auto a = cache.keep("a", bytes(50, 7));
  cache.keep("b", bytes(50, 8));
  EXPECT_EQ(cache.find("a"), nullptr);
  EXPECT_EQ(a->front()[49], 7);
}

TEST(source_shared_bytes, a_second_keep_of_one_key_returns_the_first) {
  shared_bytes cache(100);
  const auto first = cache.keep("k", bytes(10, 1));
  const auto second = cache.keep("k", bytes(10, 2));
  EXPECT_EQ(second, first);
  EXPECT_EQ(cache.held_bytes(), 10u);
}

} // namespace
