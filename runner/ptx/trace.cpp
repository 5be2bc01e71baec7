#include "runner/ptx/trace.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace bb::ptx {

namespace {

/// A request's key: (warp, instruction, execution, part).
struct request_key {
  std::uint32_t warp = 0, instruction = 0, execution = 0;
  std::uint8_t part = 0;
  friend bool operator==(const request_key&, const request_key&) = default;
};
request_key key_of(const warp_request& r) { return {r.warp, r.instruction, r.execution, r.part}; }
struct key_hash {
  std::size_t operator()(const request_key& k) const noexcept {
    std::uint64_t h = (std::uint64_t{k.warp} << 40) ^ (std::uint64_t{k.instruction} << 20) ^ k.execution ^
                      (std::uint64_t{k.part} << 58);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return static_cast<std::size_t>(h);
  }
};

} // namespace

std::vector<warp_request> warp_requests(const std::vector<shared_event>& events) {
  // A thread's events come in its program order, the lanes of a warp one after another, so lane
  // l's n-th event usually joins the request lane l - 1's n-th event made: each lane follows a
  // cursor through its warp's requests, and the hash map answers only where it strays.
  std::vector<warp_request> made;
  std::unordered_map<request_key, std::uint32_t, key_hash> index;
  index.reserve(events.size() / 8 + 16);
  std::vector<std::vector<std::uint64_t>> lines; // cp.async: the 128-byte global lines read, by request
  std::vector<std::uint32_t> position;           // by request: its place in its warp's `order`
  std::vector<std::uint32_t> order;              // this warp's requests in the order they were made
  std::uint32_t warp = ~0u, lane = ~0u;
  std::size_t cursor = 0;
  for (const shared_event& ev : events) {
    if (ev.warp != warp) {
      warp = ev.warp;
      order.clear();
      lane = ~0u;
    }
    if (ev.lane != lane) {
      lane = ev.lane;
      cursor = 0;
    }
    const request_key key{ev.warp, ev.instruction, ev.execution, ev.part};
    std::uint32_t at = 0;
    if (cursor < order.size() && key_of(made[order[cursor]]) == key) {
      at = order[cursor++];
    } else if (const auto found = index.find(key); found != index.end()) {
      at = found->second;
      cursor = std::size_t{position[at]} + 1;
    } else {
      at = static_cast<std::uint32_t>(made.size());
      index.emplace(key, at);
      warp_request& r = made.emplace_back();
      r.warp = ev.warp;
      r.instruction = ev.instruction;
      r.execution = ev.execution;
      r.part = ev.part;
      r.access.active = 0;
      r.access.width = ev.width;
      r.access.kind = ev.kind;
      r.access.l1_bypass = ev.l1_bypass;
      lines.emplace_back();
      position.push_back(static_cast<std::uint32_t>(order.size()));
      order.push_back(at);
      cursor = order.size();
    }
    warp_request& r = made[at];
    if (r.access.width != ev.width || r.access.kind != ev.kind)
      throw ptx_error("instruction " + std::to_string(ev.instruction) + " made accesses of two widths or kinds", 0);
    r.access.active |= 1u << ev.lane;
    r.access.address[ev.lane] = ev.address;
    if (ev.kind == model::access_kind::ldgsts) lines[at].push_back(ev.global_address / 128);
  }
  for (std::size_t i = 0; i < made.size(); ++i) {
    auto& l = lines[i];
    if (l.empty()) continue;
    std::sort(l.begin(), l.end());
    made[i].access.source_lines = static_cast<int>(std::unique(l.begin(), l.end()) - l.begin());
  }
  // In (warp, instruction, execution, part) order, as callers read them.
  std::sort(made.begin(), made.end(), [](const warp_request& a, const warp_request& b) {
    return std::tie(a.warp, a.instruction, a.execution, a.part) < std::tie(b.warp, b.instruction, b.execution, b.part);
  });
  return made;
}

trace_costs cost(const entry& e, const std::vector<warp_request>& requests, model::rule_set rules) {
  std::map<std::uint32_t, cost_sum> per_instruction;
  std::map<std::tuple<int, int, model::access_kind>, cost_sum> per_line;
  for (const warp_request& r : requests) {
    const instruction& in = e.body.at(r.instruction);
    const model::access_cost c = model::evaluate(r.access, rules);
    for (cost_sum* s : {&per_instruction[r.instruction], &per_line[{in.file, in.line, r.access.kind}]}) {
      s->file = in.file;
      s->line = in.line;
      s->kind = r.access.kind;
      s->requests += r.continues() ? 0 : 1;
      s->wavefronts += static_cast<std::uint64_t>(c.wavefronts);
      s->ideal_wavefronts += static_cast<std::uint64_t>(c.ideal_wavefronts);
    }
    per_instruction[r.instruction].instruction = r.instruction;
    per_instruction[r.instruction].ptx_line = in.ptx_line;
  }
  trace_costs out;
  for (auto& [k, s] : per_instruction) out.per_instruction.push_back(s);
  for (auto& [k, s] : per_line) out.per_line.push_back(s);
  return out;
}

} // namespace bb::ptx
