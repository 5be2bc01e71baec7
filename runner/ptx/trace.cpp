#include "runner/ptx/trace.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace bb::ptx {

std::vector<warp_request> warp_requests(const std::vector<shared_event>& events) {
  using request_key = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>;
  std::map<request_key, warp_request> by_key;
  std::map<request_key, std::vector<std::uint64_t>> lines; // cp.async: the 128-byte global lines read
  for (const shared_event& ev : events) {
    auto [it, added] = by_key.try_emplace({ev.warp, ev.instruction, ev.execution});
    warp_request& r = it->second;
    if (added) {
      r.warp = ev.warp;
      r.instruction = ev.instruction;
      r.execution = ev.execution;
      r.access.active = 0;
      r.access.width = ev.width;
      r.access.kind = ev.kind;
      r.access.l1_bypass = ev.l1_bypass;
    } else if (r.access.width != ev.width || r.access.kind != ev.kind) {
      throw ptx_error("instruction " + std::to_string(ev.instruction) + " made accesses of two widths or kinds", 0);
    }
    r.access.active |= 1u << ev.lane;
    r.access.address[ev.lane] = ev.address;
    if (ev.kind == model::access_kind::ldgsts) lines[it->first].push_back(ev.global_address / 128);
  }
  for (auto& [k, l] : lines) {
    std::sort(l.begin(), l.end());
    by_key[k].access.source_lines = static_cast<int>(std::unique(l.begin(), l.end()) - l.begin());
  }
  std::vector<warp_request> out;
  out.reserve(by_key.size());
  for (auto& [key, r] : by_key) out.push_back(std::move(r));
  return out;
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
      s->requests += 1;
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
