// A global buffer made a page at a time: each page filled once, on its first access, with the
// bytes the fill gives; reads of pages never made refused.
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <vector>

#include "runner/ptx/lazy_bytes.hpp"
#include "runner/ptx/run.hpp"

namespace bb::ptx {
namespace {

constexpr std::size_t k_lazy_page = lazy_bytes::k_page;

/// Byte i of the buffer is i % 251; `pages` lists the pages filled, in order.
lazy_bytes counted(std::size_t size, std::vector<std::size_t>& pages) {
  return lazy_bytes(size, [&pages](std::size_t offset, std::size_t n, std::uint8_t* out) {
    pages.push_back(offset / k_lazy_page);
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>((offset + i) % 251);
  });
}

TEST(PtxLazyBytes, PagesAreMadeOnceOnTheirFirstAccess) {
  std::vector<std::size_t> pages;
  lazy_bytes b = counted(10 * k_lazy_page + 100, pages);
  EXPECT_EQ(b.size(), 10 * k_lazy_page + 100);
  EXPECT_TRUE(pages.empty()); // nothing made yet

  const std::uint8_t* at = b.at(3 * k_lazy_page - 2, 4); // spans pages 2 and 3
  EXPECT_EQ(pages, (std::vector<std::size_t>{2, 3}));
  EXPECT_EQ(at[0], (3 * k_lazy_page - 2) % 251);
  EXPECT_EQ(at[3], (3 * k_lazy_page + 1) % 251);
  b.at(3 * k_lazy_page - 2, 4)[0] = 7; // a write stays: the page is not made again
  EXPECT_EQ(b.at(2 * k_lazy_page, 1)[k_lazy_page - 2], 7);
  EXPECT_EQ(pages.size(), 2u);
  EXPECT_TRUE(b.page_made(2));
  EXPECT_FALSE(b.page_made(4));

  EXPECT_EQ(*b.made(3 * k_lazy_page, 1), k_lazy_page * 3 % 251);
  EXPECT_THROW((void)b.made(4 * k_lazy_page, 1), std::logic_error);
  EXPECT_THROW((void)b.made(3 * k_lazy_page, k_lazy_page + 1), std::logic_error);

  const lazy_bytes copy = b; // its made pages, its fill for the rest
  EXPECT_EQ(copy.made(2 * k_lazy_page, 1)[k_lazy_page - 2], 7);
  EXPECT_THROW((void)copy.made(0, 1), std::logic_error);

  const auto all = b.all(); // the other 9 pages, the last one short
  EXPECT_EQ(pages.size(), 11u);
  EXPECT_EQ(all.size(), 10 * k_lazy_page + 100);
  EXPECT_EQ(all[10 * k_lazy_page + 99], (10 * k_lazy_page + 99) % 251);
  EXPECT_EQ(all[3 * k_lazy_page - 2], 7);
  EXPECT_EQ(*b.made(0, b.size()), 0);
  (void)b.at(0, b.size());
  EXPECT_EQ(pages.size(), 11u);
}

TEST(PtxLazyBytes, GivenBytesAreMadeAlready) {
  const lazy_bytes b(std::vector<std::uint8_t>{1, 2, 3});
  EXPECT_EQ(b.size(), 3u);
  EXPECT_EQ(b.made(0, 3)[2], 3);
  const lazy_bytes none(0, [](std::size_t, std::size_t, std::uint8_t*) { FAIL() << "no page to make"; });
  EXPECT_EQ(none.size(), 0u);
  EXPECT_TRUE(none.page_made(0));
}

} // namespace
} // namespace bb::ptx

namespace bb::ptx {
namespace {

// Stores mark what they write unless told not to: no mask is made then (a bit per byte of the buffer).
TEST(PtxGlobalMemory, WritesAreMarkedOnlyWhileTracked) {
  global_memory g;
  g.add(0x1000, std::vector<std::uint8_t>(4096, 0));
  g.track_writes(false);
  ASSERT_NE(g.find_for_write(0x1000 + 64, 4), nullptr);
  EXPECT_TRUE(g.written(0x1000).empty());
  g.track_writes(true);
  ASSERT_NE(g.find_for_write(0x1000 + 128, 4), nullptr);
  ASSERT_FALSE(g.written(0x1000).empty());
  EXPECT_TRUE(written_at(g.written(0x1000), 128));
  EXPECT_FALSE(written_at(g.written(0x1000), 64));
}

} // namespace
} // namespace bb::ptx
