#include "model/evaluate.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>
#include <string>

namespace bb::model {

namespace {

constexpr std::uint32_t k_empty = 0xffffffffu; // no word index reaches this: addresses are 32-bit

/// Distinct words of one phase, at most 32 (32 lanes x 1 word, 16 x 2 or 8 x 4).
struct word_list {
  std::array<std::uint32_t, k_warp_lanes> word;
  int size = 0;
};

/// Rule 3 for one phase: the most distinct words any one bank must serve.
int phase_wavefronts(const word_list& w) {
  // Fast path: every bank holds at most one distinct word (conflict-free, broadcast, multicast).
  std::uint32_t seen = 0;
  std::array<std::uint32_t, k_banks> first; // valid where `seen` has the bank's bit
  int i = 0;
  for (; i < w.size; ++i) {
    const std::uint32_t bank = w.word[i] % k_banks, bit = 1u << bank;
    if ((seen & bit) == 0) {
      seen |= bit;
      first[bank] = w.word[i];
    } else if (first[bank] != w.word[i]) {
      break;
    }
  }
  if (i == w.size) return 1;
  // A bank serves two or more words: count distinct words per bank through a small hash set.
  std::array<std::uint32_t, 2 * k_warp_lanes> slot;
  slot.fill(k_empty);
  std::array<int, k_banks> per_bank{};
  int most = 0;
  for (int j = 0; j < w.size; ++j) {
    const std::uint32_t x = w.word[j];
    std::uint32_t h = (x * 2654435761u) >> 26; // 64 slots
    while (slot[h] != k_empty && slot[h] != x) h = (h + 1) & 63;
    if (slot[h] == x) continue;
    slot[h] = x;
    most = std::max(most, ++per_bank[x % k_banks]);
  }
  return most;
}

void check_width(int width) {
  if (!valid_width(width))
    throw std::invalid_argument("access width " + std::to_string(width) + " B is not 1, 2, 4, 8 or 16");
}

[[noreturn]] void misaligned(int lane, std::uint32_t address, int width) {
  throw std::invalid_argument("lane " + std::to_string(lane) + ": address " + std::to_string(address) +
                              " is not a multiple of the access width " + std::to_string(width));
}

/// The words the lanes of `mask` (relative to lane `first`) touch, in lane order.
word_list phase_words(const warp_access& a, int first, std::uint32_t mask) {
  word_list w;
  const auto align = static_cast<std::uint32_t>(a.width - 1);
  const int words_per_lane = a.width > k_bank_bytes ? a.width / k_bank_bytes : 1;
  for (std::uint32_t m = mask; m != 0; m &= m - 1) {
    const int lane = first + std::countr_zero(m);
    const std::uint32_t address = a.address[static_cast<std::size_t>(lane)];
    if ((address & align) != 0) misaligned(lane, address, a.width);
    const std::uint32_t word = address / k_bank_bytes;
    for (int k = 0; k < words_per_lane; ++k) w.word[static_cast<std::size_t>(w.size++)] = word + static_cast<std::uint32_t>(k);
  }
  return w;
}

std::uint32_t phase_mask(std::uint32_t active, int first, int lanes) {
  const std::uint32_t ones = lanes == k_warp_lanes ? 0xffffffffu : (1u << lanes) - 1;
  return (active >> first) & ones;
}

} // namespace

access_cost evaluate(const warp_access& a) {
  check_width(a.width);
  access_cost c;
  c.active_lanes = std::popcount(a.active);
  if (c.active_lanes == 0) return c;
  const int lanes = lanes_per_phase(a.width);
  for (int first = 0; first < k_warp_lanes; first += lanes) {
    const std::uint32_t mask = phase_mask(a.active, first, lanes);
    if (mask == 0) continue;
    const int wf = phase_wavefronts(phase_words(a, first, mask));
    c.wavefronts += wf;
    c.degree = std::max(c.degree, wf);
  }
  c.ideal_wavefronts = std::max(1, (c.active_lanes * a.width + k_wavefront_bytes - 1) / k_wavefront_bytes);
  c.conflicts = c.wavefronts - c.ideal_wavefronts;
  return c;
}

std::vector<phase_banks> bank_detail(const warp_access& a) {
  check_width(a.width);
  std::vector<phase_banks> out;
  const int lanes = lanes_per_phase(a.width);
  const int words_per_lane = a.width > k_bank_bytes ? a.width / k_bank_bytes : 1;
  for (int first = 0; first < k_warp_lanes; first += lanes) {
    const std::uint32_t mask = phase_mask(a.active, first, lanes);
    if (mask == 0) continue;
    phase_banks p;
    p.first_lane = first;
    p.lanes = lanes;
    const word_list w = phase_words(a, first, mask);
    for (int i = 0; i < w.size; i += words_per_lane)
      for (int k = 0; k < words_per_lane; ++k) ++p.lanes_per_bank[w.word[static_cast<std::size_t>(i + k)] % k_banks];
    std::vector<std::uint32_t> distinct(w.word.begin(), w.word.begin() + w.size);
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    for (const auto word : distinct) ++p.words_per_bank[word % k_banks];
    out.push_back(p);
  }
  return out;
}

} // namespace bb::model
