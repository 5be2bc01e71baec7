// `run --shard I/N` and `run --devices`: the share rule (config/share.hpp) and its text.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runner/common/error.hpp"
#include "runner/config/share.hpp"

namespace {

using bb::config::configurations_in_share;
using bb::config::parse_shares;
using bb::config::share_unit;

/// An experiment named `name` with `variants` x `sizes` configurations, variants outermost.
struct suite {
  bb::config::experiment e;
  std::vector<bb::config::configuration> configs;
  suite(const std::string& name, int variants, int sizes) {
    e.name = name;
    for (int v = 0; v < variants; ++v)
      for (int n = 0; n < sizes; ++n) {
        bb::config::configuration c;
        c.index = configs.size();
        c.variant = "v" + std::to_string(v);
        c.params = {{"n", n}};
        configs.push_back(c);
      }
  }
  [[nodiscard]] std::vector<std::size_t> share(const std::string& text) const {
    return configurations_in_share(e, configs, parse_shares(text, "--shard"));
  }
};

std::string shard_error_of(const std::string& text) {
  try {
    parse_shares(text, "--shard");
  } catch (const bb::usage_error& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST(config_share, fnv1a_is_the_published_64_bit_hash) {
  EXPECT_EQ(bb::config::fnv1a_64(""), 14695981039346656037ULL);
  EXPECT_EQ(bb::config::fnv1a_64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(bb::config::fnv1a_64("transpose"), 17959276236181510016ULL);
}

TEST(config_share, text_reads_back) {
  const auto chain = parse_shares("1/4,0/2:variant", "--shard");
  ASSERT_EQ(chain.size(), 2u);
  EXPECT_EQ(chain[0].index, 1);
  EXPECT_EQ(chain[0].count, 4);
  EXPECT_EQ(chain[0].unit, share_unit::configuration);
  EXPECT_EQ(chain[1].index, 0);
  EXPECT_EQ(chain[1].count, 2);
  EXPECT_EQ(chain[1].unit, share_unit::variant);
  EXPECT_EQ(bb::config::share_text(chain), "1/4,0/2:variant");
  EXPECT_EQ(bb::config::share_text(parse_shares("3/8:configuration", "--shard")), "3/8");
  EXPECT_TRUE(parse_shares("", "--shard").empty());
}

TEST(config_share, bad_text_names_the_option_and_the_form) {
  EXPECT_EQ(shard_error_of("4/4"),
            "--shard '4/4': I must be between 0 and N-1; expected I/N with 0 <= I < N (e.g. 0/4), "
            "optionally followed by :variant");
  EXPECT_NE(shard_error_of("1-4").find("no '/'"), std::string::npos);
  EXPECT_NE(shard_error_of("a/4").find("'a' is not a whole number"), std::string::npos);
  EXPECT_NE(shard_error_of("0/0").find("N must be at least 1"), std::string::npos);
  EXPECT_NE(shard_error_of("1/4:size").find("unknown unit 'size'"), std::string::npos);
  EXPECT_NE(shard_error_of("1/4,").find("an empty share next to a ','"), std::string::npos);
}

TEST(config_share, round_robin_from_the_hashed_offset) {
  const suite s("transpose", 3, 3); // fnv1a("transpose") mod 4 = 0: configuration k goes to share k mod 4
  EXPECT_EQ(s.share("0/4"), (std::vector<std::size_t>{0, 4, 8}));
  EXPECT_EQ(s.share("1/4"), (std::vector<std::size_t>{1, 5}));
  EXPECT_EQ(s.share("3/4"), (std::vector<std::size_t>{3, 7}));
  const suite a("a", 1, 5); // 0xaf63dc4c8601ec8c mod 3 = 1: configuration k goes to share (k + 1) mod 3
  ASSERT_EQ(0xaf63dc4c8601ec8cULL % 3, 1u);
  EXPECT_EQ(a.share("0/3"), (std::vector<std::size_t>{2}));
  EXPECT_EQ(a.share("1/3"), (std::vector<std::size_t>{0, 3}));
  EXPECT_EQ(a.share("2/3"), (std::vector<std::size_t>{1, 4}));
}

TEST(config_share, shares_partition_the_configurations_evenly) {
  const suite s("convolution", 4, 7);
  for (int n = 1; n <= 9; ++n) {
    std::vector<std::size_t> all;
    std::size_t smallest = s.configs.size(), largest = 0;
    for (int i = 0; i < n; ++i) {
      const auto mine = s.share(std::to_string(i) + "/" + std::to_string(n));
      all.insert(all.end(), mine.begin(), mine.end());
      smallest = std::min(smallest, mine.size());
      largest = std::max(largest, mine.size());
    }
    std::sort(all.begin(), all.end());
    ASSERT_EQ(all.size(), s.configs.size()) << n << " shares";
    for (std::size_t k = 0; k < all.size(); ++k) EXPECT_EQ(all[k], k) << n << " shares";
    EXPECT_LE(largest - smallest, 1u) << n << " shares";
  }
}

TEST(config_share, a_variant_share_keeps_every_size_of_a_variant_together) {
  const suite s("tiles", 5, 4);
  std::set<std::string> seen;
  std::size_t total = 0;
  for (int i = 0; i < 2; ++i) {
    const auto mine = s.share(std::to_string(i) + "/2:variant");
    total += mine.size();
    std::set<std::string> variants;
    for (const auto k : mine) variants.insert(s.configs[k].variant);
    EXPECT_EQ(mine.size(), variants.size() * 4) << "share " << i << " splits a variant";
    for (const auto& v : variants) EXPECT_TRUE(seen.insert(v).second) << v << " in two shares";
  }
  EXPECT_EQ(total, s.configs.size());
}

TEST(config_share, a_chain_splits_a_share_further) {
  const suite s("transpose", 3, 5);
  const auto outer = s.share("1/2");
  std::vector<std::size_t> inner;
  for (int d = 0; d < 3; ++d) {
    const auto mine = s.share("1/2," + std::to_string(d) + "/3");
    for (const auto k : mine) EXPECT_TRUE(std::find(outer.begin(), outer.end(), k) != outer.end()) << k;
    inner.insert(inner.end(), mine.begin(), mine.end());
  }
  std::sort(inner.begin(), inner.end());
  EXPECT_EQ(inner, outer);
}
