#include <map>

#include <fmt/format.h>

#include "runner/model/bankmap.hpp"

namespace bb::model {

std::string verdict(const access_cost& c) {
  if (c.active_lanes == 0) return "no active lane: no request";
  const std::string cost = fmt::format("{} wavefront{}, ideal {}", c.wavefronts, c.wavefronts == 1 ? "" : "s",
                                       c.ideal_wavefronts);
  if (c.degree <= 1) return "conflict-free: " + cost;
  return fmt::format("{}-way bank conflict: {}", c.degree, cost);
}

std::string bank_label(std::uint32_t address, int width) {
  const int first = bank_of(address);
  if (width <= k_bank_bytes) return std::to_string(first);
  return fmt::format("{}-{}", first, first + width / k_bank_bytes - 1);
}

void write_text(const bankmap& m, std::ostream& out) {
  const warp_access& a = m.access;
  const access_cost cost = evaluate(a);
  out << m.title << '\n';
  out << fmt::format("{}, {} B per lane, {} active lane{}\n\n", kind_label(a.kind), a.width, cost.active_lanes,
                     cost.active_lanes == 1 ? "" : "s");
  std::map<std::uint32_t, std::size_t> element_at; // byte address -> logical element
  if (m.tile)
    for (std::size_t i = 0; i < m.tile->address.size(); ++i) element_at.emplace(m.tile->address[i], i);
  out << "lane   row   col   byte  bank\n";
  for (int lane = 0; lane < k_warp_lanes; ++lane) {
    if ((a.active >> lane & 1u) == 0) continue;
    const std::uint32_t address = a.address[static_cast<std::size_t>(lane)];
    std::string row = "-", col = "-";
    if (const auto it = element_at.find(address); m.tile && it != element_at.end()) {
      row = std::to_string(it->second / static_cast<std::size_t>(m.tile->cols));
      col = std::to_string(it->second % static_cast<std::size_t>(m.tile->cols));
    }
    out << fmt::format("{:>4}  {:>4}  {:>4}  {:>5}  {:>4}\n", lane, row, col, address, bank_label(address, a.width));
  }
  for (const auto& p : bank_detail(a)) {
    out << fmt::format("\nbanks, lanes {}-{}:\n", p.first_lane, p.first_lane + p.lanes - 1);
    std::string banks = "bank ", lanes = "lanes", words = "words";
    for (int b = 0; b < k_banks; ++b) {
      auto cell = [](int v) { return v == 0 ? std::string("  .") : fmt::format("{:>3}", v); };
      banks += fmt::format("{:>3}", b);
      lanes += cell(p.lanes_per_bank[static_cast<std::size_t>(b)]);
      words += cell(p.words_per_bank[static_cast<std::size_t>(b)]);
    }
    out << banks << '\n' << lanes << '\n' << words << '\n';
  }
  out << '\n' << verdict(cost) << '\n';
}

} // namespace bb::model
