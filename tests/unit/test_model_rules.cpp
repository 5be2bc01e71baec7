// The bank model's rules (runner/model/rules.hpp) with exact wavefront counts: strides 1..64 at
// every width, broadcast, multicast, inactive lanes, padding and swizzle, and the 8- and 16-byte
// requests an H200 measured (rule 3b, paired loads).
#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <set>
#include <stdexcept>

#include "runner/model/evaluate.hpp"
#include "runner/model/tile.hpp"

namespace {

using namespace bb::model;

/// Lane l accesses `width` bytes at byte l * stride * width (an array of `width`-byte elements).
warp_access strided(int stride, int width, std::uint32_t active = 0xffffffffu) {
  warp_access a;
  a.width = width;
  a.active = active;
  for (int l = 0; l < 32; ++l) a.address[static_cast<std::size_t>(l)] = static_cast<std::uint32_t>(l * stride * width);
  return a;
}

/// Lane l accesses `width` bytes at offset(l); lanes where offset returns -1 are inactive.
template <class F> warp_access pattern(int width, F offset, access_kind kind = access_kind::load) {
  warp_access a;
  a.width = width;
  a.kind = kind;
  a.active = 0;
  for (int l = 0; l < 32; ++l) {
    const long long o = offset(l);
    if (o < 0) continue;
    a.active |= 1u << l;
    a.address[static_cast<std::size_t>(l)] = static_cast<std::uint32_t>(o);
  }
  return a;
}

/// An independent, slow statement of rules 1-3b: sets of words per bank, per phase.
int reference_wavefronts(const warp_access& a, rule_set rules = k_rules) {
  int group = a.width <= 4 ? 32 : 128 / a.width;
  bool paired = rules == rule_set::v2 && a.width >= 8 && a.kind == access_kind::load;
  for (int l = 0; l < 32; l += 2)
    if ((a.active >> l & 1u) != 0 && (a.active >> (l + 1) & 1u) != 0 &&
        a.address[static_cast<std::size_t>(l)] != a.address[static_cast<std::size_t>(l + 1)])
      paired = false;
  if (paired) group *= 2;
  int total = 0;
  for (int first = 0; first < 32; first += group) {
    std::set<std::uint32_t> words[32];
    for (int l = first; l < first + group; ++l) {
      if ((a.active >> l & 1u) == 0) continue;
      for (std::uint32_t byte = a.address[static_cast<std::size_t>(l)];
           byte < a.address[static_cast<std::size_t>(l)] + static_cast<std::uint32_t>(a.width); byte += 4)
        words[(byte / 4) % 32].insert(byte / 4);
    }
    std::size_t most = 0;
    for (const auto& w : words) most = std::max(most, w.size());
    total += static_cast<int>(most);
  }
  return total;
}

TEST(model_rules, banks_are_words_mod_32) {
  EXPECT_EQ(bank_of(0), 0);
  EXPECT_EQ(bank_of(3), 0);
  EXPECT_EQ(bank_of(4), 1);
  EXPECT_EQ(bank_of(124), 31);
  EXPECT_EQ(bank_of(128), 0);
  EXPECT_EQ(bank_of(132 * 5), 5); // row 5 of float[32][33], column 0
}

// Closed forms where the lanes' words are an arithmetic sequence: with a step of k words, each
// bank receives gcd(k, 32) distinct words; 8-byte lanes pair banks per half-warp, 16-byte lanes
// take four banks per quarter-warp.
TEST(model_rules, stride_1_to_64_at_4_8_and_16_bytes) {
  for (int s = 1; s <= 64; ++s) {
    EXPECT_EQ(evaluate(strided(s, 4)).wavefronts, std::gcd(s, 32)) << "4 B, stride " << s;
    EXPECT_EQ(evaluate(strided(s, 8)).wavefronts, 2 * std::gcd(s, 16)) << "8 B, stride " << s;
    EXPECT_EQ(evaluate(strided(s, 16)).wavefronts, 4 * std::gcd(s, 8)) << "16 B, stride " << s;
    EXPECT_EQ(evaluate(strided(s, 8)).degree, std::gcd(s, 16)) << "8 B, stride " << s;
    EXPECT_EQ(evaluate(strided(s, 16)).degree, std::gcd(s, 8)) << "16 B, stride " << s;
  }
}

TEST(model_rules, stride_1_to_64_at_1_and_2_bytes) {
  for (int s = 1; s <= 64; ++s) {
    // Whole words per lane: the 4-byte closed form with a step of s*width/4 words.
    if (s % 4 == 0) {
      EXPECT_EQ(evaluate(strided(s, 1)).wavefronts, std::gcd(s / 4, 32)) << "1 B, stride " << s;
    }
    if (s % 2 == 0) {
      EXPECT_EQ(evaluate(strided(s, 2)).wavefronts, std::gcd(s / 2, 32)) << "2 B, stride " << s;
    }
    // Lanes sharing words: the reference sets.
    EXPECT_EQ(evaluate(strided(s, 1)).wavefronts, reference_wavefronts(strided(s, 1))) << "1 B, stride " << s;
    EXPECT_EQ(evaluate(strided(s, 2)).wavefronts, reference_wavefronts(strided(s, 2))) << "2 B, stride " << s;
  }
  // Worked by hand: char stride 1-4 fit 32 banks; stride 5 puts words w and w + 32 (w = 0, 1, 3, 5,
  // 6) in one request; short stride 3 does the same for w = 1, 4, 7, 10, 13.
  const int char_expected[] = {1, 1, 1, 1, 2, 2, 2, 2};
  for (int s = 1; s <= 8; ++s)
    EXPECT_EQ(evaluate(strided(s, 1)).wavefronts, char_expected[s - 1]) << "char stride " << s;
  EXPECT_EQ(evaluate(strided(3, 2)).wavefronts, 2);
  EXPECT_EQ(evaluate(strided(1, 2)).wavefronts, 1);
  EXPECT_EQ(evaluate(strided(128, 1)).wavefronts, 32); // one byte per 128-byte line: all in bank 0
}

TEST(model_rules, the_reference_agrees_at_every_width) {
  for (int w : {1, 2, 4, 8, 16})
    for (int s = 0; s <= 64; ++s)
      EXPECT_EQ(evaluate(strided(s, w)).wavefronts, reference_wavefronts(strided(s, w))) << w << " " << s;
}

TEST(model_rules, requests_spread_over_kilobytes) {
  // Lane l at l * 4 KiB: 32 words of bank 0, 31 lines apart each.
  EXPECT_EQ(evaluate(strided(1024, 4)).wavefronts, 32);
  warp_access four; // four words of bank 0, 8 KiB apart, each read by 8 lanes
  for (int l = 0; l < 32; ++l) four.address[static_cast<std::size_t>(l)] = static_cast<std::uint32_t>(l % 4 * 8192);
  EXPECT_EQ(evaluate(four).wavefronts, 4);
  warp_access spread; // 32 banks, one word each, 1 MiB apart from lane to lane
  for (int l = 0; l < 32; ++l)
    spread.address[static_cast<std::size_t>(l)] = static_cast<std::uint32_t>(l * (1 << 20) + l * 4);
  EXPECT_EQ(evaluate(spread).wavefronts, 1);
}

TEST(model_rules, random_requests_agree_with_the_reference) {
  // Seeded: every path of evaluate() (one line, every bank busy, per bank, per line, hashed).
  std::mt19937 rng(20261121);
  const int widths[] = {1, 2, 4, 8, 16};
  const std::uint32_t spans[] = {128, 512, 4096, 8192, 65536, 1u << 24};
  for (int i = 0; i < 20000; ++i) {
    warp_access a;
    a.width = widths[rng() % 5];
    const std::uint32_t span = spans[rng() % 6];
    const std::uint32_t distinct = 1 + rng() % 40; // few values: multicast; many: spread
    std::vector<std::uint32_t> pool(distinct);
    for (auto& p : pool) p = rng() % span / static_cast<std::uint32_t>(a.width) * static_cast<std::uint32_t>(a.width);
    for (auto& x : a.address) x = pool[rng() % distinct];
    a.active = rng() % 4 == 0 ? static_cast<std::uint32_t>(rng()) : 0xffffffffu;
    if (rng() % 3 == 0) // lane pairs sharing addresses: rule 3b's paired phases
      for (std::size_t l = 0; l < 32; l += 2) a.address[l + 1] = a.address[l];
    a.kind = rng() % 4 == 0 ? access_kind::store : access_kind::load;
    ASSERT_EQ(evaluate(a).wavefronts, reference_wavefronts(a)) << "case " << i << ", width " << a.width;
    ASSERT_EQ(evaluate(a, rule_set::v1).wavefronts, reference_wavefronts(a, rule_set::v1)) << "case " << i;
  }
}

// The H200's stride sweep (experiments/stride, 2026-11-21), loads of s[(lane / group) * stride]:
// strided lanes follow rule 3; multicast pairs (lanes 2g, 2g + 1) are served twice as wide (3b).
TEST(model_rules, the_h200_stride_sweep_at_8_and_16_bytes) {
  const int strides[] = {1, 2, 3, 4, 8, 16, 32, 33, 64};
  const int strided_8[] = {2, 4, 2, 8, 16, 32, 32, 2, 32}, strided_16[] = {4, 8, 4, 16, 32, 32, 32, 4, 32};
  const int multicast_8[] = {1, 2, 1, 4, 8, 16, 16, 1, 16}, multicast_16[] = {2, 4, 2, 8, 16, 16, 16, 2, 16};
  for (std::size_t i = 0; i < std::size(strides); ++i) {
    const int s = strides[i];
    EXPECT_EQ(evaluate(pattern(8, [&](int l) { return l * s * 8; })).wavefronts, strided_8[i]) << s;
    EXPECT_EQ(evaluate(pattern(16, [&](int l) { return l * s * 16; })).wavefronts, strided_16[i]) << s;
    const auto m8 = evaluate(pattern(8, [&](int l) { return l / 2 * s * 8; }));
    const auto m16 = evaluate(pattern(16, [&](int l) { return l / 2 * s * 16; }));
    EXPECT_EQ(m8.wavefronts, multicast_8[i]) << s;
    EXPECT_EQ(m16.wavefronts, multicast_16[i]) << s;
    // The hardware counter reads wavefronts - groups: multicast 8 B stride 2, 1 conflict; 16 B, 2.
    EXPECT_EQ(m8.conflicts, multicast_8[i] - 1) << s;
    EXPECT_EQ(m16.conflicts, multicast_16[i] - 2) << s;
    // Rules v1 stays reachable: half- and quarter-warps for the pairs too, so at least 2 and 4
    // wavefronts; it was wrong only where the pairs are conflict-free (odd strides).
    EXPECT_EQ(evaluate(pattern(8, [&](int l) { return l / 2 * s * 8; }), rule_set::v1).wavefronts,
              std::max(2, multicast_8[i]))
        << s;
    EXPECT_EQ(evaluate(pattern(16, [&](int l) { return l / 2 * s * 16; }), rule_set::v1).wavefronts,
              std::max(4, multicast_16[i]))
        << s;
  }
}

// The discriminating probe (bench/probes/wide_probe.cu on an H200, 2026-11-21): one warp,
// per-lane offsets; measured wavefronts and conflicts per request, exact.
TEST(model_rules, the_h200_wide_probe) {
  struct row {
    const char* name;
    warp_access a;
    int wavefronts, conflicts;
  };
  const auto st = access_kind::store;
  const row rows[] = {
      {"8 B contiguous", pattern(8, [](int l) { return 8 * l; }), 2, 0},
      {"8 B contiguous + 8", pattern(8, [](int l) { return 8 + 8 * l; }), 2, 0},
      {"8 B contiguous + 64", pattern(8, [](int l) { return 64 + 8 * l; }), 2, 0},
      {"8 B lanes l, l + 16 share", pattern(8, [](int l) { return 8 * (l % 16); }), 2, 0},
      {"8 B pairs", pattern(8, [](int l) { return 8 * (l / 2); }), 1, 0},
      {"8 B pairs shifted by a lane", pattern(8, [](int l) { return 8 * ((l + 1) / 2); }), 2, 0},
      {"8 B quads", pattern(8, [](int l) { return 8 * (l / 4); }), 1, 0},
      {"8 B pairs, halves equal", pattern(8, [](int l) { return 8 * (l % 16 / 2); }), 1, 0},
      {"8 B pairs, lane 31 apart", pattern(8, [](int l) { return l == 31 ? 320 : 8 * (l / 2); }), 3, 1},
      {"8 B pairs, 4-way", pattern(8, [](int l) { return 256 * (l / 2 % 4) + 8 * (l / 8); }), 4, 3},
      {"8 B odd lanes off", pattern(8, [](int l) { return l % 2 == 0 ? 8 * (l / 2) : -1; }), 1, 0},
      {"8 B pairs, one pair off", pattern(8, [](int l) { return l / 2 == 5 ? -1 : 8 * (l / 2); }), 1, 0},
      {"8 B lanes 0-7, 16-23, 128 B", pattern(8, [](int l) { return l % 16 < 8 ? 8 * (l % 8 + 8 * (l / 16)) : -1; }), 2,
       0},
      {"8 B permuted", pattern(8, [](int l) { return 8 * (l * 5 % 32); }), 2, 0},
      {"8 B stride 2", pattern(8, [](int l) { return 16 * l; }), 4, 2},
      {"8 B broadcast", pattern(8, [](int) { return 0; }), 1, 0},
      {"16 B contiguous", pattern(16, [](int l) { return 16 * l; }), 4, 0},
      {"16 B contiguous + 16", pattern(16, [](int l) { return 16 + 16 * l; }), 4, 0},
      {"16 B lanes l mod 8 share", pattern(16, [](int l) { return 16 * (l % 8); }), 4, 0},
      {"16 B lanes l mod 16 share", pattern(16, [](int l) { return 16 * (l % 16); }), 4, 0},
      {"16 B pairs", pattern(16, [](int l) { return 16 * (l / 2); }), 2, 0},
      {"16 B quads", pattern(16, [](int l) { return 16 * (l / 4); }), 2, 0},
      {"16 B pairs, quarters equal", pattern(16, [](int l) { return 16 * (l % 8 / 2); }), 2, 0},
      {"16 B pairs, lane 31 apart", pattern(16, [](int l) { return l == 31 ? 256 : 16 * (l / 2); }), 4, 0},
      {"16 B pairs, 4-way", pattern(16, [](int l) { return 128 * (l / 2 % 4) + 16 * (l / 8); }), 8, 6},
      {"16 B odd lanes off", pattern(16, [](int l) { return l % 2 == 0 ? 16 * (l / 2) : -1; }), 2, 0},
      {"16 B lanes 0-7", pattern(16, [](int l) { return l < 8 ? 16 * l : -1; }), 1, 0},
      {"16 B lanes 0-7, 8-15 same 128 B", pattern(16, [](int l) { return l < 16 ? 16 * (l % 8) : -1; }), 2, 0},
      {"16 B lanes 0-3, 16-19", pattern(16, [](int l) { return l % 16 < 4 ? 16 * (l % 4 + 4 * (l / 16)) : -1; }), 2, 0},
      {"16 B broadcast", pattern(16, [](int) { return 0; }), 2, 0},
      {"8 B store pairs",
       pattern(
           8, [](int l) { return 8 * (l / 2); }, st),
       2, 0},
      {"8 B store broadcast",
       pattern(
           8, [](int) { return 0; }, st),
       2, 0},
      {"8 B store lanes 0-7, 16-23",
       pattern(
           8, [](int l) { return l % 16 < 8 ? 8 * (l % 8 + 8 * (l / 16)) : -1; }, st),
       2, 0},
      {"8 B store stride 2",
       pattern(
           8, [](int l) { return 16 * l; }, st),
       4, 2},
      {"16 B store pairs",
       pattern(
           16, [](int l) { return 16 * (l / 2); }, st),
       4, 0},
      {"16 B store quads",
       pattern(
           16, [](int l) { return 16 * (l / 4); }, st),
       4, 0},
      {"16 B store broadcast",
       pattern(
           16, [](int) { return 0; }, st),
       4, 0},
      {"16 B store lanes 0-3, 16-19",
       pattern(
           16, [](int l) { return l % 16 < 4 ? 16 * (l % 4 + 4 * (l / 16)) : -1; }, st),
       2, 0},
  };
  for (const auto& r : rows) {
    const auto c = evaluate(r.a);
    EXPECT_EQ(c.wavefronts, r.wavefronts) << r.name;
    EXPECT_EQ(c.conflicts, r.conflicts) << r.name;
    EXPECT_EQ(c.wavefronts, reference_wavefronts(r.a)) << r.name;
  }
}

TEST(model_rules, broadcast_costs_one_wavefront_per_phase) {
  // Stride 0: every lane reads element 0. A load pairs its lanes (rule 3b): the whole warp for 8 B,
  // half-warps for 16 B (H200: 1 and 2); a store does not (H200: 2 and 4, rule 3).
  const int load_expected[] = {1, 1, 1, 1, 2}, store_expected[] = {1, 1, 1, 2, 4}, v1_expected[] = {1, 1, 1, 2, 4};
  int i = 0;
  for (int w : {1, 2, 4, 8, 16}) {
    const auto c = evaluate(strided(0, w));
    EXPECT_EQ(c.wavefronts, load_expected[i]) << w;
    EXPECT_EQ(c.degree, 1) << w;
    EXPECT_EQ(c.conflicts, 0) << w;
    auto st = strided(0, w);
    st.kind = access_kind::store;
    EXPECT_EQ(evaluate(st).wavefronts, store_expected[i]) << w;
    EXPECT_EQ(evaluate(st).conflicts, 0) << w;
    EXPECT_EQ(evaluate(strided(0, w), rule_set::v1).wavefronts, v1_expected[i]) << w;
    ++i;
  }
}

TEST(model_rules, multicast_groups_share_their_words) {
  warp_access pairs; // lanes 2k and 2k+1 read word k
  for (int l = 0; l < 32; ++l) pairs.address[static_cast<std::size_t>(l)] = static_cast<std::uint32_t>(l / 2 * 4);
  EXPECT_EQ(evaluate(pairs).wavefronts, 1);
  warp_access two_words; // even lanes read word 0, odd lanes word 32: one bank, two words
  for (int l = 0; l < 32; ++l) two_words.address[static_cast<std::size_t>(l)] = static_cast<std::uint32_t>(l % 2 * 128);
  EXPECT_EQ(evaluate(two_words).wavefronts, 2);
  EXPECT_EQ(evaluate(two_words).degree, 2);
  warp_access eight_way; // lanes l read word 32 * (l % 8): 8 words in bank 0, each shared by 4 lanes
  for (int l = 0; l < 32; ++l) eight_way.address[static_cast<std::size_t>(l)] = static_cast<std::uint32_t>(l % 8 * 128);
  EXPECT_EQ(evaluate(eight_way).wavefronts, 8);
  warp_access bytes; // four lanes' chars in each word: one word per bank
  for (int l = 0; l < 32; ++l) bytes.address[static_cast<std::size_t>(l)] = static_cast<std::uint32_t>(l);
  bytes.width = 1;
  EXPECT_EQ(evaluate(bytes).wavefronts, 1);
}

TEST(model_rules, stores_follow_the_same_rules) {
  auto st = strided(32, 4);
  st.kind = access_kind::store;
  EXPECT_EQ(evaluate(st).wavefronts, 32);
  st = strided(1, 4);
  st.kind = access_kind::store;
  EXPECT_EQ(evaluate(st).wavefronts, 1);
}

TEST(model_rules, inactive_lanes_take_no_part) {
  EXPECT_EQ(evaluate(strided(32, 4, 0x0000000fu)).wavefronts, 4); // 4 lanes of a 32-way column
  EXPECT_EQ(evaluate(strided(32, 4, 0x0000000fu)).ideal_wavefronts, 1);
  EXPECT_EQ(evaluate(strided(32, 4, 0x80000000u)).wavefronts, 1);
  EXPECT_EQ(evaluate(strided(2, 4, 0x0000ffffu)).wavefronts, 1); // the conflicting upper half is off
  const auto none = evaluate(strided(32, 4, 0));
  EXPECT_EQ(none.wavefronts, 0);
  EXPECT_EQ(none.ideal_wavefronts, 0);
  EXPECT_EQ(none.active_lanes, 0);
  // 8 bytes, lanes 0-15 only: one half-warp, one wavefront, which is also the ideal.
  const auto half = evaluate(strided(1, 8, 0x0000ffffu));
  EXPECT_EQ(half.wavefronts, 1);
  EXPECT_EQ(half.conflicts, 0);
  // Lanes 0-7 and 16-23: 128 bytes in two half-warps, two wavefronts; the H200's counter reads
  // no conflict, so the ideal is the two groups (rules v1 said one wavefront and one conflict).
  const auto split = evaluate(strided(1, 8, 0x00ff00ffu));
  EXPECT_EQ(split.wavefronts, 2);
  EXPECT_EQ(split.ideal_wavefronts, 2);
  EXPECT_EQ(split.conflicts, 0);
  EXPECT_EQ(evaluate(strided(1, 8, 0x00ff00ffu), rule_set::v1).conflicts, 1);
  // Even lanes only, 8 B each, distinct: every pair has one active lane, so rule 3b serves the
  // warp at once (H200: 1 wavefront); 16 B, two half-warps (H200: 2).
  EXPECT_EQ(evaluate(strided(1, 8, 0x55555555u)).wavefronts, 2); // 16 elements over 256 B: 2 words a bank
  EXPECT_EQ(evaluate(pattern(8, [](int l) { return l % 2 == 0 ? 4 * l : -1; })).wavefronts, 1);
  EXPECT_EQ(evaluate(pattern(16, [](int l) { return l % 2 == 0 ? 8 * l : -1; })).wavefronts, 2);
  // Misaligned addresses of inactive lanes are never looked at.
  auto a = strided(1, 8, 1);
  a.address[5] = 3;
  EXPECT_EQ(evaluate(a).wavefronts, 1);
}

TEST(model_rules, conflicts_are_wavefronts_above_the_ideal_for_the_width) {
  for (int w : {1, 2, 4, 8, 16}) {
    const auto c = evaluate(strided(1, w));
    EXPECT_EQ(c.ideal_wavefronts, std::max(1, 32 * w / 128)) << w;
    EXPECT_EQ(c.wavefronts, c.ideal_wavefronts) << w;
    EXPECT_EQ(c.conflicts, 0) << w;
  }
  const auto naive = evaluate(strided(32, 4));
  EXPECT_EQ(naive.conflicts, 31);
  EXPECT_EQ(naive.degree, 32);
  const auto d = evaluate(strided(32, 8)); // double[32][32] column: 16 words in bank 0 per half-warp
  EXPECT_EQ(d.wavefronts, 32);
  EXPECT_EQ(d.ideal_wavefronts, 2);
  EXPECT_EQ(d.conflicts, 30);
  EXPECT_EQ(d.degree, 16);
}

TEST(model_rules, padding_a_tile_spreads_its_columns) {
  // Column 0 of float[32][32 + p]: degree gcd(32 + p, 32).
  const int float_expected[] = {32, 1, 2, 1, 4};
  // double[32][32 + p]: per half-warp, 2p words between lanes: gcd(p, 16), or 16 without padding.
  const int double_expected[] = {32, 2, 4, 2, 8};
  for (int p = 0; p <= 4; ++p) {
    const auto f = make_tile({32, 32, 4, "float", p, 0});
    EXPECT_EQ(evaluate(make_access(f, {access_pattern::along::column, 0})).wavefronts, float_expected[p]) << p;
    const auto d = make_tile({32, 32, 8, "double", p, 0});
    EXPECT_EQ(evaluate(make_access(d, {access_pattern::along::column, 7})).wavefronts, double_expected[p]) << p;
  }
  // float[32][34] passes the often-quoted `row bytes % 128 != 0` and is still 2-way.
  const auto f34 = make_tile({32, 32, 4, "float", 2, 0});
  EXPECT_NE(34 * 4 % 128, 0);
  EXPECT_EQ(evaluate(make_access(f34, {access_pattern::along::column, 0})).degree, 2);
  // Rows are conflict-free at any padding.
  EXPECT_EQ(evaluate(make_access(f34, {access_pattern::along::row, 5})).wavefronts, 1);
}

TEST(model_rules, xor_swizzle_spreads_columns_without_padding) {
  const auto full = make_tile({32, 32, 4, "float", 0, 32});
  for (int c : {0, 5, 31})
    EXPECT_EQ(evaluate(make_access(full, {access_pattern::along::column, c})).wavefronts, 1) << c;
  EXPECT_EQ(evaluate(make_access(full, {access_pattern::along::row, 9})).wavefronts, 1);
  // Swizzling by row % 8 only reaches 8 banks: 4 lanes per bank.
  const auto part = make_tile({32, 32, 4, "float", 0, 8});
  EXPECT_EQ(evaluate(make_access(part, {access_pattern::along::column, 3})).wavefronts, 4);
  // float4 tile[8][8] swizzled by row: each quarter-warp's 8 lanes in 8 distinct 4-bank groups.
  const auto f4 = make_tile({8, 8, 16, "float4", 0, 8});
  EXPECT_EQ(evaluate(make_access(f4, {access_pattern::along::column, 0})).wavefronts, 1);
  EXPECT_EQ(evaluate(make_access(make_tile({8, 8, 16, "float4", 0, 0}), {access_pattern::along::column, 0})).wavefronts,
            8);
}

TEST(model_rules, impossible_requests_are_refused) {
  EXPECT_THROW(evaluate(strided(1, 3)), std::invalid_argument);
  EXPECT_THROW(evaluate(strided(1, 32)), std::invalid_argument);
  auto a = strided(1, 8);
  a.address[3] = 4; // not a multiple of 8
  try {
    evaluate(a);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "lane 3: address 4 is not a multiple of the access width 8");
  }
  EXPECT_THROW(make_tile({32, 32, 12, "struct", 0, 0}), std::invalid_argument);
  EXPECT_THROW(make_tile({32, 32, 4, "float", 0, 3}), std::invalid_argument);
  EXPECT_THROW(make_tile({32, 24, 4, "float", 0, 16}), std::invalid_argument);
  EXPECT_THROW(make_access(make_tile({32, 32, 4, "float", 0, 0}), {access_pattern::along::column, 32}),
               std::invalid_argument);
}

TEST(model_rules, bank_detail_counts_lanes_and_words_per_bank) {
  const auto d = bank_detail(strided(32, 4, 0x0000000fu));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].lanes_per_bank[0], 4);
  EXPECT_EQ(d[0].words_per_bank[0], 4);
  EXPECT_EQ(d[0].words_per_bank[1], 0);
  const auto b = bank_detail(strided(0, 16)); // broadcast of one float4: two paired half-warps, banks 0-3
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[1].first_lane, 16);
  EXPECT_EQ(b[1].lanes, 16);
  EXPECT_EQ(b[1].lanes_per_bank[2], 16);
  EXPECT_EQ(b[1].words_per_bank[2], 1);
  auto st = strided(0, 16); // stored: four quarter-warps
  st.kind = access_kind::store;
  const auto q = bank_detail(st);
  ASSERT_EQ(q.size(), 4u);
  EXPECT_EQ(q[3].first_lane, 24);
  EXPECT_EQ(q[3].lanes_per_bank[2], 8);
}

// Lost arbitrations widen the allowance upwards only: the TMA read-back an H100 measured at 4.44
// wavefronts per request (prediction 4) with 0.56 arbitration conflicts per request agrees; without
// them it does not, and nothing lets a measurement fall below the prediction's allowance.
TEST(model_rules, arbitration_widens_the_allowance_upwards_only) {
  EXPECT_FALSE(agrees(4.44, 4.0));
  EXPECT_TRUE(agrees(4.44, 4.0, 0.56));
  EXPECT_FALSE(agrees(5.0, 4.0, 0.56));
  EXPECT_FALSE(agrees(3.5, 4.0, 10.0));
  EXPECT_TRUE(agrees(4.2, 4.0, -1.0)); // a negative value is no allowance at all
  EXPECT_FALSE(agrees(4.3, 4.0, -1.0));
}

} // namespace

namespace {

// Per-line ideal: what an H100's SASS counter (smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal)
// gave per request for stride's multicast (lane pairs read one element, elements `stride` apart)
// and broadcast loads, 8 blocks x 512 iterations x 8 warps = 32768 requests each
// (docs/measurements/2026-11-27-h100-code-lines.md), against the range profiler's ideal.
struct per_line_case {
  int stride, width, wavefronts, range_ideal, sass_ideal;
};

TEST(model_rules, the_per_instruction_ideal_is_the_sass_counters) {
  for (const per_line_case c :
       {per_line_case{1, 16, 2, 2, 2}, per_line_case{2, 16, 4, 2, 4}, per_line_case{16, 16, 16, 2, 4},
        per_line_case{2, 8, 2, 1, 2}, per_line_case{16, 8, 16, 1, 2}, per_line_case{1, 8, 1, 1, 1}}) {
    SCOPED_TRACE(testing::Message() << "multicast stride " << c.stride << " width " << c.width);
    const warp_access a = pattern(c.width, [&](int l) { return (l / 2) * c.stride * c.width; });
    const access_cost cost = evaluate(a);
    EXPECT_EQ(cost.wavefronts, c.wavefronts);
    EXPECT_EQ(cost.ideal_wavefronts, c.range_ideal);
    EXPECT_EQ(instruction_ideal_wavefronts(a, cost), c.sass_ideal);
  }
  // Broadcast at 16 bytes: two paired half-warps, ideal 2 on both counters.
  const warp_access b = pattern(16, [](int) { return 0; });
  EXPECT_EQ(instruction_ideal_wavefronts(b, evaluate(b)), 2);
  // Stores, 4-byte loads and other kinds are the range profiler's.
  const warp_access s = pattern(
      16, [](int l) { return (l / 2) * 32; }, access_kind::store);
  EXPECT_EQ(instruction_ideal_wavefronts(s, evaluate(s)), evaluate(s).ideal_wavefronts);
  const warp_access w = strided(2, 4);
  EXPECT_EQ(instruction_ideal_wavefronts(w, evaluate(w)), 1);
}

} // namespace
