#include "runner/query/lines.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "runner/common/error.hpp"
#include "runner/common/metrics.hpp"
#include "runner/query/cells.hpp"
#include "runner/query/history.hpp"
#include "runner/query/selector.hpp"
#include "runner/store/results.hpp"

namespace bb::query {

namespace {

// The range profiler's shared-memory bank conflicts (common/metrics.hpp): the whole count, or per
// operation ("..._op_ld.sum"). The SASS per-instruction counters (smsp__sass_..._op_ldsm) are
// parts of op_ld and op_st, so they are not added.
constexpr std::string_view k_conflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared";
constexpr std::string_view k_sum = ".sum";

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

// Source files read once each; a file that cannot be read gives "" for every line.
class source_files {
public:
  std::string line(const std::string& file, int number) {
    if (file.empty() || number <= 0) return "";
    auto it = m_files.find(file);
    if (it == m_files.end()) it = m_files.emplace(file, read(file)).first;
    const auto& lines = it->second;
    return static_cast<std::size_t>(number) <= lines.size() ? lines[static_cast<std::size_t>(number) - 1] : "";
  }

private:
  static std::vector<std::string> read(const std::string& file) {
    std::vector<std::string> lines;
    std::ifstream in(file);
    for (std::string l; in && std::getline(in, l);) lines.push_back(trimmed(l));
    return lines;
  }
  std::map<std::string, std::vector<std::string>> m_files;
};

// "LDS x4, STS": opcodes in the order their first instruction comes (by pc), each with its count.
std::string opcode_list(const std::vector<const store::line_row*>& rows) {
  std::vector<std::pair<std::string, int>> counts;
  for (const auto* r : rows) {
    const std::string name = r->opcode.empty() ? r->kind : r->opcode;
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == name; });
    if (it == counts.end())
      counts.emplace_back(name, 1);
    else
      ++it->second;
  }
  std::string out;
  for (const auto& [name, n] : counts)
    out += (out.empty() ? "" : ", ") + (n > 1 ? fmt::format("{} x{}", name, n) : name);
  return out;
}

std::string kind_list(const std::vector<const store::line_row*>& rows) {
  std::set<std::string> kinds;
  for (const auto* r : rows) kinds.insert(r->kind);
  std::string out;
  for (const auto& k : kinds) out += (out.empty() ? "" : ", ") + k;
  return out;
}

bool variant_matches(const std::string& variant, const std::string& wanted) {
  return wanted.empty() || variant == wanted || short_variant(variant) == wanted;
}

std::string filters_text(const lines_query& q) {
  std::string out;
  if (!q.experiment.empty()) out += " -e " + q.experiment;
  if (!q.variant.empty()) out += " --variant " + q.variant;
  for (const auto& [key, value] : q.params) out += " -p " + key + "=" + value;
  return out;
}

} // namespace

std::string no_lines_message(const store::database& db, const std::vector<store::run_info>& runs) {
  std::string ids, files;
  std::set<std::string> seen;
  for (const auto& r : runs) {
    ids += (ids.empty() ? "" : ", ") + std::to_string(r.id);
    const auto detail = db.run(r.id);
    const std::string file = detail ? detail->run.experiment_path : r.experiment_name;
    if (seen.insert(file).second) files += " " + file;
  }
  return fmt::format("{} {} {} no per-line data; collect it with: bankbench run{} --lines",
                     runs.size() == 1 ? "run" : "runs", ids, runs.size() == 1 ? "has" : "have", files);
}

std::function<std::string(const std::string&, int)> source_reader() {
  auto files = std::make_shared<source_files>();
  return [files](const std::string& file, int line) { return files->line(file, line); };
}

std::optional<hardware_conflicts> hardware_conflicts_of(const std::vector<std::pair<std::string, double>>& metrics) {
  const std::string whole = std::string(k_conflicts) + std::string(k_sum);
  const std::string per_op = std::string(k_conflicts) + "_op_";
  hardware_conflicts h;
  bool found = false;
  for (const auto& [name, value] : metrics) {
    if (name == whole) {
      hardware_conflicts all;
      all.total = value;
      all.parts = {{"all", value}};
      return all;
    }
    if (name.rfind(per_op, 0) != 0 || name.size() < per_op.size() + k_sum.size() ||
        name.compare(name.size() - k_sum.size(), k_sum.size(), k_sum) != 0)
      continue;
    found = true;
    h.total += value;
    h.parts.emplace_back("op_" + name.substr(per_op.size(), name.size() - per_op.size() - k_sum.size()), value);
  }
  // cp.async's shared-side conflicts are a counter of their own, apart from op_ld and op_st (the
  // access_kinds set reads it as a SASS counter; ldmatrix's and stmatrix's are inside op_ld/op_st).
  const bool has_ldgsts = std::any_of(h.parts.begin(), h.parts.end(),
                                      [](const auto& p) { return p.first == "op_ldgsts"; });
  for (const auto& [name, value] : metrics)
    if (!has_ldgsts && name == metrics::k_ldgsts_conflicts) {
      found = true;
      h.total += value;
      h.parts.emplace_back("op_ldgsts", value);
    }
  if (!found) return std::nullopt;
  return h;
}

std::vector<source_line> rank_lines(const std::vector<store::line_row>& rows,
                                    const std::function<std::string(const std::string&, int)>& source_text) {
  std::map<std::pair<std::string, int>, std::vector<const store::line_row*>> by_line;
  for (const auto& r : rows) by_line[{r.file, r.line}].push_back(&r);
  std::uint64_t total = 0;
  std::vector<source_line> out;
  for (auto& [key, group] : by_line) {
    std::stable_sort(group.begin(), group.end(), [](const auto* a, const auto* b) {
      return std::tie(a->function, a->pc) < std::tie(b->function, b->pc);
    });
    source_line l;
    l.file = key.first;
    l.line = key.second;
    // The text stored when the lines were collected; the file as it is now for rows without it.
    l.text = !group.front()->source.empty() ? group.front()->source : source_text(l.file, l.line);
    l.opcodes = opcode_list(group);
    l.kinds = kind_list(group);
    l.instructions = static_cast<int>(group.size());
    for (const auto* r : group) {
      l.executions += r->executions;
      l.wavefronts += r->wavefronts;
      l.ideal += r->ideal;
      l.excess += r->excess();
    }
    total += l.excess;
    out.push_back(std::move(l));
  }
  for (auto& l : out)
    if (total > 0) l.share = static_cast<double>(l.excess) / static_cast<double>(total);
  std::stable_sort(out.begin(), out.end(), [](const source_line& a, const source_line& b) {
    if (a.excess != b.excess) return a.excess > b.excess;
    if (a.wavefronts != b.wavefronts) return a.wavefronts > b.wavefronts;
    return std::tie(a.file, a.line) < std::tie(b.file, b.line);
  });
  return out;
}

std::string demangled(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  const std::unique_ptr<char, void (*)(void*)> text(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status),
                                                    std::free);
  return status == 0 && text ? std::string(text.get()) : name;
}

std::vector<configuration_lines> select_lines(const store::database& db, const lines_query& q) {
  std::vector<store::run_info> runs;
  for (const auto& r : select_runs(db, q.run))
    if (q.experiment.empty() || r.experiment_name == q.experiment) runs.push_back(r);
  if (runs.empty())
    throw usage_error(
        fmt::format("no run of experiment '{}' among {}; `bankbench list runs` lists the runs", q.experiment, q.run));
  std::map<std::int64_t, const store::run_info*> by_id;
  std::vector<std::int64_t> ids;
  for (const auto& r : runs) {
    by_id[r.id] = &r;
    ids.push_back(r.id);
  }
  const auto text = source_reader();
  std::vector<configuration_lines> out;
  std::set<std::int64_t> matched;
  for (const auto& row : store::read_results(db, ids)) {
    if (!variant_matches(row.variant, q.variant) || !params_match(row.params_json, q.params)) continue;
    matched.insert(row.run_id);
    auto collection = store::read_lines(db, row.id);
    if (!collection) continue;
    configuration_lines c;
    c.run_id = row.run_id;
    c.configuration_id = row.id;
    c.experiment = row.experiment;
    c.seq = row.seq;
    c.variant = row.variant;
    c.params_json = row.params_json;
    c.status = collection->status;
    c.note = collection->note;
    c.function = collection->kernel;
    c.kernel = demangled(collection->kernel);
    c.lines = rank_lines(collection->rows, text);
    for (const auto& l : c.lines) c.excess += l.excess;
    std::vector<std::pair<std::string, double>> means;
    for (const auto& [name, stats] : row.metrics) means.emplace_back(name, stats.mean);
    c.hardware = hardware_conflicts_of(means);
    out.push_back(std::move(c));
  }
  if (matched.empty())
    throw usage_error(
        fmt::format("no configuration of {} matches{}; `bankbench show {}` lists them", q.run, filters_text(q), q.run));
  if (out.empty()) {
    std::vector<store::run_info> without; // the runs with a matching configuration
    for (const auto id : matched) without.push_back(*by_id.at(id));
    throw usage_error(no_lines_message(db, without));
  }
  return out;
}

} // namespace bb::query
