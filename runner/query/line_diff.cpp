#include "runner/query/line_diff.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "runner/common/error.hpp"
#include "runner/query/lines.hpp"
#include "runner/query/selector.hpp"
#include "runner/store/lines.hpp"

namespace bb::query {

namespace {

using reader = std::function<std::string(const std::string&, int)>;

// (file name, line): where an instruction is, within one function.
using place = std::pair<std::string, int>;

place place_of(const store::line_row& r) { return {std::filesystem::path(r.file).filename().string(), r.line}; }

// One side's ok collection, its rows by function in pc order; none where not collected or not ok.
using by_function = std::map<std::string, std::vector<store::line_row>>;

std::optional<by_function> usable_rows(const store::database& db, const store::result_row& row) {
  if (row.id == 0) return std::nullopt;
  auto collection = store::read_lines(db, row.id);
  if (!collection || collection->status != store::lines_status::ok) return std::nullopt;
  by_function out;
  for (auto& r : collection->rows) out[without_file_ids(r.function)].push_back(std::move(r));
  for (auto& [name, rows] : out)
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.pc < b.pc; });
  return out;
}

// Baseline place -> candidate place where the instructions are the same opcodes in the same pc
// order and the places map one to one; none otherwise (the code itself changed).
std::optional<std::map<place, place>> shifted_places(const std::vector<store::line_row>& b,
                                                     const std::vector<store::line_row>& c) {
  if (b.size() != c.size()) return std::nullopt;
  std::map<place, place> forward, backward;
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (b[i].opcode != c[i].opcode || b[i].kind != c[i].kind) return std::nullopt;
    const place from = place_of(b[i]), to = place_of(c[i]);
    if (from.first != to.first) return std::nullopt;
    const auto f = forward.emplace(from, to).first;
    const auto r = backward.emplace(to, from).first;
    if (f->second != to || r->second != from) return std::nullopt;
  }
  return forward;
}

// The instructions of `rows` at each place, summed, with their text and opcodes.
std::map<place, source_line> lines_by_place(const std::vector<store::line_row>& rows, const reader& text) {
  std::map<place, source_line> out;
  for (auto& l : rank_lines(rows, text))
    out.emplace(place{std::filesystem::path(l.file).filename().string(), l.line}, std::move(l));
  return out;
}

line_numbers numbers_of(const source_line& l) { return {l.line, l.executions, l.excess}; }

void diff_function(const std::string& function, const std::vector<store::line_row>* b,
                   const std::vector<store::line_row>* c, const reader& text, configuration_line_diff& out) {
  static const std::vector<store::line_row> none;
  const auto base = lines_by_place(b ? *b : none, text), cand = lines_by_place(c ? *c : none, text);
  std::map<place, place> mapping; // baseline -> candidate; identity where the lines did not move
  std::set<place> b_places, c_places;
  for (const auto& [p, l] : base) b_places.insert(p);
  for (const auto& [p, l] : cand) c_places.insert(p);
  std::optional<std::map<place, place>> shifted;
  if (b && c && b_places != c_places) shifted = shifted_places(*b, *c);
  if (shifted) {
    mapping = *shifted;
    std::map<std::string, line_move> moves; // by file
    for (const auto& [from, to] : mapping) {
      auto& m = moves[from.first];
      m.file = from.first;
      m.function = demangled(function);
      m.lines.emplace_back(from.second, to.second);
    }
    for (auto& [file, m] : moves) {
      std::set<int> offsets;
      for (const auto& [from, to] : m.lines) offsets.insert(to - from);
      if (offsets == std::set<int>{0}) continue;
      if (offsets.size() == 1) m.offset = *offsets.begin();
      out.moves.push_back(std::move(m));
    }
  } else {
    for (const auto& p : b_places)
      if (c_places.count(p) > 0) mapping.emplace(p, p);
  }
  std::set<place> matched_candidates;
  const std::string name = demangled(function);
  for (const auto& [p, l] : base) {
    line_match m;
    m.file = p.first;
    m.function = name;
    m.text = l.text;
    m.opcodes = l.opcodes;
    m.baseline = numbers_of(l);
    if (const auto it = mapping.find(p); it != mapping.end()) {
      const auto& cl = cand.at(it->second);
      if (!cl.text.empty()) m.text = cl.text;
      m.opcodes = cl.opcodes;
      m.candidate = numbers_of(cl);
      matched_candidates.insert(it->second);
    }
    out.lines.push_back(std::move(m));
  }
  for (const auto& [p, l] : cand) {
    if (matched_candidates.count(p) > 0) continue;
    out.lines.push_back({p.first, name, l.text, l.opcodes, std::nullopt, numbers_of(l)});
  }
}

int line_of(const line_match& m) { return m.candidate ? m.candidate->line : m.baseline->line; }

configuration_line_diff diff_configuration(const store::result_row& b, const store::result_row& c,
                                           const by_function& base, const by_function& cand, const reader& text) {
  configuration_line_diff d;
  d.experiment = c.experiment;
  d.variant = c.variant;
  d.params_json = canonical_params(c.params_json);
  d.arch = c.arch;
  d.baseline_run = b.run_id;
  d.candidate_run = c.run_id;
  std::set<std::string> functions;
  for (const auto& [f, rows] : base) functions.insert(f);
  for (const auto& [f, rows] : cand) functions.insert(f);
  for (const auto& f : functions) {
    const auto bi = base.find(f), ci = cand.find(f);
    diff_function(f, bi == base.end() ? nullptr : &bi->second, ci == cand.end() ? nullptr : &ci->second, text, d);
  }
  std::stable_sort(d.lines.begin(), d.lines.end(), [](const line_match& x, const line_match& y) {
    return std::make_tuple(x.file, x.function, line_of(x)) < std::make_tuple(y.file, y.function, line_of(y));
  });
  return d;
}

bool has_lines(const store::database& db, const side& s) {
  return std::any_of(s.rows.begin(), s.rows.end(),
                     [&](const store::result_row& r) { return r.id != 0 && store::read_lines(db, r.id); });
}

} // namespace

std::string line_move::describe() const {
  if (offset) return fmt::format("lines moved ({:+d})", *offset);
  std::string pairs;
  for (const auto& [from, to] : lines)
    if (from != to) pairs += fmt::format("{}{} -> {}", pairs.empty() ? "" : ", ", from, to);
  return "lines moved (" + pairs + ")";
}

side lines_side(const store::database& db, const std::string& spec, const side* anchor) {
  const auto s = resolve_spec(db, spec, anchor);
  std::vector<std::int64_t> ids;
  for (const auto& r : s.runs) ids.push_back(r.id);
  return side_of_runs(s.label, s.runs, store::read_results(db, ids, {{}, false}));
}

std::string without_file_ids(const std::string& mangled) {
  static const std::string k_mark = "_GLOBAL__N_";
  std::string out;
  std::size_t from = 0;
  for (auto at = mangled.find(k_mark); at != std::string::npos; at = mangled.find(k_mark, at + k_mark.size())) {
    // <length><identifier>: the length's digits come just before the mark.
    std::size_t digits = at;
    while (digits > from && std::isdigit(static_cast<unsigned char>(mangled[digits - 1])) != 0) --digits;
    if (digits == at || at - digits > 6) continue;
    const std::size_t length = std::stoul(mangled.substr(digits, at - digits));
    if (length < k_mark.size() || at + length > mangled.size()) continue;
    out.append(mangled, from, digits - from);
    out += "12_GLOBAL__N_1";
    from = at + length;
    at = from - k_mark.size(); // the search goes on after the identifier
  }
  return out + mangled.substr(from);
}

line_diff diff_lines(const store::database& db, const side& baseline, const side& candidate) {
  for (const auto* s : {&baseline, &candidate})
    if (!has_lines(db, *s)) {
      if (s->runs.empty())
        throw usage_error(fmt::format("{} holds no run of this database, so no per-line data; collect it with: "
                                      "bankbench run EXPERIMENT --lines",
                                      s->label));
      throw usage_error(no_lines_message(db, s->runs));
    }
  line_diff out;
  out.baseline_label = baseline.label;
  out.baseline_description = baseline.description;
  out.candidate_label = candidate.label;
  out.candidate_description = candidate.description;
  std::map<std::string, std::vector<const store::result_row*>> by_key;
  for (const auto& r : baseline.rows) by_key[configuration_key(r)].push_back(&r);
  const reader text = source_reader();
  for (const auto& c : candidate.rows) {
    const auto it = by_key.find(configuration_key(c));
    if (it == by_key.end()) continue;
    const auto same = std::find_if(it->second.begin(), it->second.end(),
                                   [&](const auto* b) { return b->arch == c.arch; });
    const store::result_row& b = same != it->second.end() ? **same : *it->second.front();
    const auto base = usable_rows(db, b), cand = usable_rows(db, c);
    if (!base || !cand) {
      ++out.without_lines;
      continue;
    }
    out.configurations.push_back(diff_configuration(b, c, *base, *cand, text));
  }
  return out;
}

} // namespace bb::query
