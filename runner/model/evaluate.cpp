#include "runner/model/evaluate.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

namespace bb::model {

namespace {

constexpr std::uint32_t k_empty = 0xffffffffu; // no unit index reaches this: addresses are 32-bit

/// One phase in units of the access: a lane of W >= 4 bytes covers W/4 consecutive banks of one
/// line, so distinct W-byte units per group of W/4 banks count the same as distinct words per
/// bank; below 4 bytes the unit is the word. A 128-byte line then holds 2^shift units (32, 16
/// or 8) and unit u is in bank group u mod 2^shift of line u >> shift. Inactive lanes repeat an
/// active lane's unit, which changes no count of distinct units.
template <int Lanes, int Shift> struct phase_units {
  static constexpr int n = Lanes;     ///< lanes in the phase: 32, 16 or 8 (up to twice the units per line when paired)
  static constexpr int shift = Shift; ///< log2 of units per line: 5, 4 or 3
  static constexpr std::uint32_t mask = (1u << Shift) - 1;
  static constexpr std::uint32_t all_groups = Shift == 5 ? 0xffffffffu : (1u << (1u << Shift)) - 1;
  std::array<std::uint32_t, Lanes> unit;
};

/// Bit count without the POPCNT instruction, which the x86-64 baseline lacks.
int popcount64(std::uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return static_cast<int>((x * 0x0101010101010101ull) >> 56);
}

/// The largest count over bank groups, where the count of group g is how many of rows[0, n) have
/// bit g set: a bit-sliced counter adds each row into Planes bit planes (counts below
/// 2^Planes), then the planes are searched from the top bit down.
template <int Planes> int most_per_group(const std::array<std::uint32_t, 64>& rows, int n, std::uint32_t groups) {
  std::array<std::uint32_t, Planes> plane{};
  for (int r = 0; r < n; ++r) {
    std::uint32_t carry = rows[static_cast<std::size_t>(r)];
    for (auto& p : plane) {
      const std::uint32_t next = p & carry;
      p ^= carry;
      carry = next;
    }
  }
  int most = 0;
  for (int k = Planes - 1; k >= 0; --k)
    if ((groups & plane[static_cast<std::size_t>(k)]) != 0) {
      groups &= plane[static_cast<std::size_t>(k)];
      most |= 1 << k;
    }
  return most;
}

/// The same count made per group, for few busy groups over many lines (an unpadded column). Four
/// sets of masks, merged at the end, keep lanes of one group from waiting on each other's stores.
template <class Phase> int most_per_group_of(const Phase& p, std::uint32_t base, std::uint32_t groups) {
  std::array<std::array<std::uint64_t, k_banks>, 4> lines_of_group;
  for (std::uint32_t g = groups; g != 0; g &= g - 1)
    for (auto& set : lines_of_group) set[static_cast<std::size_t>(std::countr_zero(g))] = 0;
  for (std::size_t i = 0; i < p.unit.size(); ++i) {
    const std::uint32_t u = p.unit[i];
    lines_of_group[i % 4][u & Phase::mask] |= std::uint64_t{1} << ((u >> Phase::shift) - base);
  }
  int most = 0;
  for (; groups != 0; groups &= groups - 1) {
    const auto g = static_cast<std::size_t>(std::countr_zero(groups));
    most = std::max(most, popcount64(lines_of_group[0][g] | lines_of_group[1][g] | lines_of_group[2][g] |
                                     lines_of_group[3][g]));
  }
  return most;
}

/// Distinct units per group through a small hash set, for phases spread over 64 lines or more.
template <class Phase> int most_per_group_hashed(const Phase& p) {
  std::array<int, k_banks> per_group{};
  std::array<std::uint32_t, 2 * k_warp_lanes> slot;
  slot.fill(k_empty);
  int most = 0;
  for (const std::uint32_t u : p.unit) {
    std::uint32_t h = (u * 2654435761u) >> 26; // 64 slots
    while (slot[h] != k_empty && slot[h] != u) h = (h + 1) & 63;
    if (slot[h] == u) continue;
    slot[h] = u;
    most = std::max(most, ++per_group[u & Phase::mask]);
  }
  return most;
}

/// Rule 3 for one phase: the most distinct words any one bank must serve. Units in one group
/// differ in their line, so a group's distinct units are its distinct lines. Where the phase
/// spans fewer than 64 lines (8 KiB), one pass records which groups each line uses and the
/// busiest group is a column count over those rows (or a count per group when few are busy).
template <class Phase> int phase_wavefronts(const Phase& p) {
  constexpr std::uint32_t mask = Phase::mask;
  // Lines as signed ints (below 2^27), which SSE2 can take the minimum and maximum of.
  std::int32_t lo = static_cast<std::int32_t>(p.unit[0] >> Phase::shift), hi = lo;
  for (const std::uint32_t u : p.unit) {
    lo = std::min(lo, static_cast<std::int32_t>(u >> Phase::shift));
    hi = std::max(hi, static_cast<std::int32_t>(u >> Phase::shift));
  }
  if (hi == lo) return 1; // one 128-byte line: one unit per group at most
  std::uint32_t groups = 0;
  for (const std::uint32_t u : p.unit) groups |= 1u << (u & mask);
  if constexpr (Phase::n == 1 << Phase::shift) // a paired phase has twice as many lanes as groups
    if (groups == Phase::all_groups) return 1; // as many busy groups as lanes: one unit each
  if (hi - lo >= 64) return most_per_group_hashed(p);
  const auto base = static_cast<std::uint32_t>(lo);
  const int rows = hi - lo + 1, planes = std::bit_width(static_cast<unsigned>(rows));
  // Rough instruction costs of the two counts; per group wins for few busy groups (a column).
  if (8 * Phase::n + 16 * popcount64(groups) < 3 * rows * planes) return most_per_group_of(p, base, groups);
  std::array<std::uint32_t, 64> groups_of_line{};
  for (const std::uint32_t u : p.unit) groups_of_line[(u >> Phase::shift) - base] |= 1u << (u & mask);
  switch (planes) {
  case 1: return most_per_group<1>(groups_of_line, rows, groups);
  case 2: return most_per_group<2>(groups_of_line, rows, groups);
  case 3: return most_per_group<3>(groups_of_line, rows, groups);
  case 4: return most_per_group<4>(groups_of_line, rows, groups);
  case 5: return most_per_group<5>(groups_of_line, rows, groups);
  case 6: return most_per_group<6>(groups_of_line, rows, groups);
  default: return most_per_group<7>(groups_of_line, rows, groups); // 64 rows
  }
}

void check_width(int width) {
  if (!valid_width(width))
    throw std::invalid_argument("access width " + std::to_string(width) + " B is not 1, 2, 4, 8 or 16");
}

[[noreturn]] void misaligned(const warp_access& a, std::uint32_t mask, int first) {
  for (std::uint32_t m = mask; m != 0; m &= m - 1) {
    const int lane = first + std::countr_zero(m);
    const std::uint32_t address = a.address[static_cast<std::size_t>(lane)];
    if (address % static_cast<std::uint32_t>(a.width) != 0)
      throw std::invalid_argument("lane " + std::to_string(lane) + ": address " + std::to_string(address) +
                                  " is not a multiple of the access width " + std::to_string(a.width));
  }
  throw std::logic_error("misaligned() found no misaligned lane");
}

/// The active lanes of phase [first, first + lanes), as bits relative to `first`.
std::uint32_t phase_mask(std::uint32_t active, int first, int lanes) {
  const std::uint32_t ones = lanes == k_warp_lanes ? 0xffffffffu : (1u << lanes) - 1;
  return (active >> first) & ones;
}

/// Units of the phase starting at lane `first` with active lanes `mask` (not 0). Fixed trip
/// counts and no branch on lane data, so the compiler vectorises the full-warp case.
template <int Lanes, int UnitBytes, int Shift>
phase_units<Lanes, Shift> units_of(const warp_access& a, int first, std::uint32_t mask) {
  constexpr std::uint32_t all = Lanes == k_warp_lanes ? 0xffffffffu : (1u << Lanes) - 1;
  const std::uint32_t* address = a.address.data() + first;
  std::uint32_t bits = 0; // OR of the addresses: its low bits say whether any is misaligned
  phase_units<Lanes, Shift> p;
  if (mask == all) {
    for (int i = 0; i < Lanes; ++i) {
      bits |= address[i];
      p.unit[static_cast<std::size_t>(i)] = address[i] / UnitBytes;
    }
  } else {
    const std::uint32_t filler = address[std::countr_zero(mask)];
    for (int i = 0; i < Lanes; ++i) {
      const std::uint32_t x = (mask >> i & 1u) != 0 ? address[i] : filler;
      bits |= x;
      p.unit[static_cast<std::size_t>(i)] = x / UnitBytes;
    }
  }
  if ((bits & static_cast<std::uint32_t>(a.width - 1)) != 0) misaligned(a, mask, first);
  return p;
}

/// Rule 3 for the phase of `lanes` lanes starting at lane `first`.
int phase_wavefronts(const warp_access& a, int lanes, int first, std::uint32_t mask) {
  if (a.width == 16) {
    return lanes == 8 ? phase_wavefronts(units_of<8, 16, 3>(a, first, mask))
                      : phase_wavefronts(units_of<16, 16, 3>(a, first, mask));
  }
  if (a.width == 8) {
    return lanes == 16 ? phase_wavefronts(units_of<16, 8, 4>(a, first, mask))
                       : phase_wavefronts(units_of<32, 8, 4>(a, first, mask));
  }
  return phase_wavefronts(units_of<32, 4, 5>(a, first, mask));
}

/// Lanes per phase: rule 3, doubled by rule 3b for a wide load whose lane pairs share addresses.
int phase_lanes(const warp_access& a, rule_set rules) {
  const int lanes = lanes_per_phase(a.width);
  const bool paired = rules != rule_set::v1 && a.width > k_bank_bytes && a.kind == access_kind::load &&
                      lane_pairs_share(a.address, a.active);
  return paired ? 2 * lanes : lanes;
}

/// Shared atomics: lanes on distinct words of one bank are served one wavefront each, and lanes on
/// one word share a wavefront (an H100 took 1 wavefront for 32 lanes adding to one address and 32
/// for 32 lanes on 32 words of one bank, docs/bank-model.md): the busiest bank's distinct words.
access_cost evaluate_atomic(const warp_access& a) {
  access_cost c;
  c.active_lanes = std::popcount(a.active);
  if (c.active_lanes == 0) return c;
  const int lanes = lanes_per_phase(a.width);
  const int words_per_lane = a.width > k_bank_bytes ? a.width / k_bank_bytes : 1;
  int phases = 0;
  for (int first = 0; first < k_warp_lanes; first += lanes) {
    const std::uint32_t mask = phase_mask(a.active, first, lanes);
    if (mask == 0) continue;
    (void)phase_wavefronts(a, lanes, first, mask); // the alignment check
    std::array<std::uint32_t, k_warp_lanes * 4> words{};
    std::size_t n = 0;
    for (std::uint32_t m = mask; m != 0; m &= m - 1) {
      const std::uint32_t word = a.address[static_cast<std::size_t>(first + std::countr_zero(m))] / k_bank_bytes;
      for (int k = 0; k < words_per_lane; ++k) words[n++] = word + static_cast<std::uint32_t>(k);
    }
    std::sort(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(n));
    const auto end = std::unique(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(n));
    std::array<int, k_banks> per_bank{};
    for (auto it = words.begin(); it != end; ++it) ++per_bank[*it % k_banks];
    const int wf = *std::max_element(per_bank.begin(), per_bank.end());
    c.wavefronts += wf;
    c.degree = std::max(c.degree, wf);
    ++phases;
  }
  c.ideal_wavefronts = phases;
  c.conflicts = c.wavefronts - c.ideal_wavefronts;
  return c;
}

} // namespace

access_cost evaluate(const warp_access& a, rule_set rules) {
  check_width(a.width);
  if (a.kind == access_kind::atom) return evaluate_atomic(a);
  access_cost c;
  c.active_lanes = std::popcount(a.active);
  if (c.active_lanes == 0) return c;
  const int lanes = phase_lanes(a, rules);
  int phases = 0;
  for (int first = 0; first < k_warp_lanes; first += lanes) {
    const std::uint32_t mask = phase_mask(a.active, first, lanes);
    if (mask == 0) continue;
    const int wf = phase_wavefronts(a, lanes, first, mask);
    c.wavefronts += wf;
    c.degree = std::max(c.degree, wf);
    ++phases;
  }
  c.ideal_wavefronts = rules == rule_set::v1
                           ? std::max(1, (c.active_lanes * a.width + k_wavefront_bytes - 1) / k_wavefront_bytes)
                           : phases;
  // cp.async writes shared memory as its global lines arrive: an H100 took one wavefront per
  // 128-byte source line even where the destinations were conflict-free (docs/bank-model.md).
  if (a.kind == access_kind::ldgsts && a.source_lines > c.wavefronts) c.wavefronts = a.source_lines;
  // cp.async.cg: an H100 and an H200 counted 0 conflicts in every cp_async layout, 8-way
  // destinations included, where .ca counted every wavefront above the ideal.
  c.conflicts = a.kind == access_kind::ldgsts && a.l1_bypass ? 0 : c.wavefronts - c.ideal_wavefronts;
  return c;
}

int instruction_ideal_wavefronts(const warp_access& a, const access_cost& c) {
  if (a.kind != access_kind::load || a.width <= k_bank_bytes) return c.ideal_wavefronts;
  const int lanes = lanes_per_phase(a.width);
  int phases = 0; // of the width's lanes, unpaired
  for (int first = 0; first < k_warp_lanes; first += lanes) phases += phase_mask(a.active, first, lanes) != 0 ? 1 : 0;
  return std::max(c.ideal_wavefronts, std::min(c.wavefronts, phases));
}

std::vector<phase_banks> bank_detail(const warp_access& a, rule_set rules) {
  check_width(a.width);
  std::vector<phase_banks> out;
  const int lanes = phase_lanes(a, rules);
  const int words_per_lane = a.width > k_bank_bytes ? a.width / k_bank_bytes : 1;
  for (int first = 0; first < k_warp_lanes; first += lanes) {
    const std::uint32_t mask = phase_mask(a.active, first, lanes);
    if (mask == 0) continue;
    (void)phase_wavefronts(a, lanes, first, mask); // the same alignment check as evaluate()
    phase_banks p;
    p.first_lane = first;
    p.lanes = lanes;
    std::vector<std::uint32_t> words;
    for (std::uint32_t m = mask; m != 0; m &= m - 1) {
      const std::uint32_t word = a.address[static_cast<std::size_t>(first + std::countr_zero(m))] / k_bank_bytes;
      for (int k = 0; k < words_per_lane; ++k) {
        ++p.lanes_per_bank[(word + static_cast<std::uint32_t>(k)) % k_banks];
        words.push_back(word + static_cast<std::uint32_t>(k));
      }
    }
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    for (const auto word : words) ++p.words_per_bank[word % k_banks];
    out.push_back(p);
  }
  return out;
}

} // namespace bb::model
