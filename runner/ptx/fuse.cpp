#include "runner/ptx/fuse.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>

namespace bb::ptx {
namespace {

bool has_part(const instruction& in, std::string_view part) {
  return std::find(in.parts.begin(), in.parts.end(), part) != in.parts.end();
}

bool outside_shared(const instruction& in) {
  return has_part(in, "global") || has_part(in, "local") || has_part(in, "param") || has_part(in, "const");
}

// A scalar (or v2 of 4 bytes) `ld.shared` / `st.shared` with no qualifier that could stop ptxas
// from fusing it (volatile, relaxed, ...).
struct candidate {
  bool store = false;
  std::string base;
  std::int64_t offset = 0;
  int bytes = 0;
};

std::optional<candidate> candidate_of(const instruction& in) {
  if (in.parts.size() < 3 || (in.parts[0] != "ld" && in.parts[0] != "st")) return std::nullopt;
  bool shared = false;
  int elements = 1;
  for (std::size_t i = 1; i + 1 < in.parts.size(); ++i) {
    if (in.parts[i] == "shared" || in.parts[i] == "shared::cta")
      shared = true;
    else if (in.parts[i] == "v2")
      elements = 2;
    else
      return std::nullopt;
  }
  const int element = type_bytes(in.parts.back());
  const int bytes = element * elements;
  if (!shared || (elements == 2 && element != 4) || (bytes != 4 && bytes != 8)) return std::nullopt;
  candidate c;
  c.store = in.parts[0] == "st";
  const std::size_t at = c.store ? 0 : 1;
  if (in.operands.size() <= at || in.operands[at].kind != operand_kind::memory) return std::nullopt;
  c.base = in.operands[at].name;
  c.offset = in.operands[at].value;
  c.bytes = bytes;
  return c;
}

// Instructions that end a run whatever it is: control flow and ordering.
bool ends_every_run(const instruction& in) {
  static const std::array<std::string_view, 15> k_ends = {"bar", "barrier",  "membar", "fence",   "bra",
                                                          "brx", "ret",      "exit",   "call",    "trap",
                                                          "cp",  "mbarrier", "wgmma",  "tcgen05", "griddepcontrol"};
  return std::find(k_ends.begin(), k_ends.end(), in.parts[0]) != k_ends.end();
}

bool may_write_shared(const instruction& in) {
  static const std::array<std::string_view, 5> k_writes = {"st", "atom", "red", "stmatrix", "wmma"};
  return std::find(k_writes.begin(), k_writes.end(), in.parts[0]) != k_writes.end() && !outside_shared(in);
}

bool may_read_shared(const instruction& in) {
  static const std::array<std::string_view, 6> k_reads = {"ld", "ldu", "atom", "red", "ldmatrix", "wmma"};
  return std::find(k_reads.begin(), k_reads.end(), in.parts[0]) != k_reads.end() && !outside_shared(in);
}

// The registers an instruction writes: its first operand (and setp's / shfl's second, `%p|%q`).
std::vector<std::string> written(const instruction& in) {
  std::vector<std::string> out;
  const std::size_t n = in.parts[0] == "setp" || in.parts[0] == "shfl" ? 2 : 1;
  for (std::size_t i = 0; i < n && i < in.operands.size(); ++i) {
    const operand& o = in.operands[i];
    if (o.kind == operand_kind::reg) out.push_back(o.name);
    if (o.kind == operand_kind::vector)
      for (const operand& el : o.elements)
        if (el.kind == operand_kind::reg) out.push_back(el.name);
  }
  return out;
}

// Accesses of one kind, base, width and guard, by offset.
struct run_key {
  bool store = false;
  std::string base;
  int bytes = 0;
  std::string guard;
  bool guard_negated = false;
  auto operator<=>(const run_key&) const = default;
};

void cut(int w, std::map<std::int64_t, std::uint32_t>& by_offset, std::vector<fusion_chunk>& out) {
  auto it = by_offset.begin();
  while (it != by_offset.end()) {
    auto end = std::next(it); // the contiguous run [it, end)
    while (end != by_offset.end() && end->first == std::prev(end)->first + w) ++end;
    for (auto at = it; at != end;) {
      bool made = false;
      for (const int size : {16, 8}) {
        const int count = size / w;
        if (count < 2 || ((at->first % size) + size) % size != 0 || std::distance(at, end) < count) continue;
        fusion_chunk c;
        c.element_bytes = w;
        for (int i = 0; i < count; ++i, ++at) c.members.push_back(at->second);
        out.push_back(std::move(c));
        made = true;
        break;
      }
      if (!made) ++at;
    }
    it = end;
  }
  by_offset.clear();
}

} // namespace

fusion_plan plan_fusion(const entry& e) {
  fusion_plan plan;
  std::set<std::uint32_t> targets;
  for (const auto& [label, index] : e.labels) targets.insert(static_cast<std::uint32_t>(index));
  std::map<run_key, std::map<std::int64_t, std::uint32_t>> open;
  const auto close_if = [&](auto&& pred) {
    for (auto& [key, by_offset] : open)
      if (!by_offset.empty() && pred(key)) cut(key.bytes, by_offset, plan.chunks);
  };
  for (std::uint32_t i = 0; i < e.body.size(); ++i) {
    const instruction& in = e.body[i];
    if (targets.count(i) != 0) close_if([](const run_key&) { return true; });
    if (in.parts.empty()) continue;
    if (const auto c = candidate_of(in)) {
      const run_key key{c->store, c->base, c->bytes, in.guard, in.guard_negated};
      // A store may alias any other access; a load may alias only stores.
      close_if([&](const run_key& k) { return c->store ? !k.store || k != key : k.store; });
      auto& by_offset = open[key];
      if (by_offset.count(c->offset) != 0) cut(key.bytes, by_offset, plan.chunks);
      by_offset[c->offset] = i;
    } else if (ends_every_run(in) || may_write_shared(in)) {
      close_if([](const run_key&) { return true; });
    } else if (may_read_shared(in)) {
      close_if([](const run_key& k) { return k.store; });
    }
    for (const std::string& r : written(in)) close_if([&](const run_key& k) { return k.base == r || k.guard == r; });
  }
  close_if([](const run_key&) { return true; });
  return plan;
}

std::vector<shared_event> fuse_adjacent(const fusion_plan& plan, std::vector<shared_event> events) {
  if (plan.chunks.empty()) return events;
  struct place {
    std::uint32_t chunk = 0, position = 0;
  };
  std::unordered_map<std::uint32_t, place> member_of;
  for (std::uint32_t c = 0; c < plan.chunks.size(); ++c)
    for (std::uint32_t p = 0; p < plan.chunks[c].members.size(); ++p) member_of[plan.chunks[c].members[p]] = {c, p};

  // Per chunk and member: the address of each (warp, lane, execution).
  using addresses = std::unordered_map<std::uint64_t, std::uint32_t>;
  std::vector<std::vector<addresses>> seen(plan.chunks.size());
  std::vector<bool> broken(plan.chunks.size(), false);
  for (std::uint32_t c = 0; c < plan.chunks.size(); ++c) seen[c].resize(plan.chunks[c].members.size());
  const auto key_of = [](const shared_event& ev) {
    return (static_cast<std::uint64_t>(ev.execution) << 32) | (static_cast<std::uint64_t>(ev.warp) << 5) | ev.lane;
  };
  for (const shared_event& ev : events) {
    const auto it = member_of.find(ev.instruction);
    if (it == member_of.end()) continue;
    const auto [c, p] = it->second;
    if (ev.width != plan.chunks[c].element_bytes || !seen[c][p].try_emplace(key_of(ev), ev.address).second)
      broken[c] = true;
  }

  // Members [first, first + count) of chunk c fuse when every execution of the first is aligned to
  // the fused size and every other member made the same executions at the following addresses.
  const auto fuses = [&](std::uint32_t c, std::uint32_t first, std::uint32_t count) {
    const int w = plan.chunks[c].element_bytes;
    const std::uint32_t size = count * static_cast<std::uint32_t>(w);
    for (std::uint32_t j = 1; j < count; ++j)
      if (seen[c][first + j].size() != seen[c][first].size()) return false;
    for (const auto& [key, address] : seen[c][first]) {
      if (address % size != 0) return false;
      for (std::uint32_t j = 1; j < count; ++j) {
        const auto other = seen[c][first + j].find(key);
        if (other == seen[c][first + j].end() || other->second != address + j * static_cast<std::uint32_t>(w))
          return false;
      }
    }
    return true;
  };
  struct fused {
    std::uint32_t first_position = 0, lowest = 0;
    int element_bytes = 0, bytes = 0;
  };
  std::unordered_map<std::uint32_t, fused> fused_of; // member instruction -> its fused access
  const auto fuse = [&](std::uint32_t c, std::uint32_t first, std::uint32_t count) {
    const fusion_chunk& ch = plan.chunks[c];
    const auto begin = ch.members.begin() + first;
    const fused f{first, *std::min_element(begin, begin + count), ch.element_bytes,
                  static_cast<int>(count) * ch.element_bytes};
    for (std::uint32_t j = 0; j < count; ++j) fused_of[ch.members[first + j]] = f;
  };
  for (std::uint32_t c = 0; c < plan.chunks.size(); ++c) {
    if (broken[c]) continue;
    const auto n = static_cast<std::uint32_t>(plan.chunks[c].members.size());
    if (fuses(c, 0, n)) {
      fuse(c, 0, n);
    } else if (plan.chunks[c].bytes() == 16 && n == 4) { // as two 8-byte halves
      for (const std::uint32_t first : {0u, 2u})
        if (fuses(c, first, 2)) fuse(c, first, 2);
    }
  }

  std::vector<shared_event> out;
  out.reserve(events.size());
  for (shared_event& ev : events) {
    const auto it = fused_of.find(ev.instruction);
    if (it == fused_of.end()) {
      out.push_back(ev);
      continue;
    }
    const fused& f = it->second;
    if (ev.instruction != f.lowest) continue;
    const auto position = member_of.at(ev.instruction).position;
    ev.address -= (position - f.first_position) * static_cast<std::uint32_t>(f.element_bytes);
    ev.width = f.bytes;
    out.push_back(ev);
  }
  return out;
}

std::vector<shared_event> fuse_adjacent(const entry& e, std::vector<shared_event> events) {
  return fuse_adjacent(plan_fusion(e), std::move(events));
}

} // namespace bb::ptx
