#include "runner/query/line_gate.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runner/query/cells.hpp"
#include "runner/query/table.hpp"

namespace bb::query {

namespace {

constexpr std::size_t k_line_source_width = 50; // source text beyond this is cut in table and markdown

std::string per_execution_text(double v) { return fmt::format("{:.4g}", v); }

// "transpose.cu:38", or "transpose.cu:38 -> 39" where the line moved.
std::string place_label(const line_match& m) {
  if (m.baseline && m.candidate && m.baseline->line != m.candidate->line)
    return fmt::format("{}:{} -> {}", m.file, m.baseline->line, m.candidate->line);
  return fmt::format("{}:{}", m.file, m.candidate ? m.candidate->line : m.baseline->line);
}

std::string source_cell_text(const std::string& text) {
  if (text.empty()) return "-";
  if (display_width(text) <= k_line_source_width) return text;
  std::size_t points = 0, i = 0;
  for (; i < text.size(); ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80 && points++ == k_line_source_width - 3) break;
  return text.substr(0, i) + "...";
}

std::string before_after(const line_match& m, const std::function<std::string(const line_numbers&)>& show) {
  return fmt::format("{} -> {}", m.baseline ? show(*m.baseline) : "-", m.candidate ? show(*m.candidate) : "-");
}

std::string excess_change(const line_match& m) {
  return before_after(m, [](const line_numbers& n) { return std::to_string(n.excess); });
}

std::string per_execution_change(const line_match& m) {
  return before_after(m, [](const line_numbers& n) { return per_execution_text(n.per_execution()); });
}

std::string configuration_title(const configuration_line_diff& c) {
  const std::string p = compact_params(c.params_json);
  return fmt::format("{} {}{} (run {} -> run {})", c.experiment, short_variant(c.variant), p.empty() ? "" : " " + p,
                     c.baseline_run, c.candidate_run);
}

const char* line_outcome_text(outcome o) { return o == outcome::regression ? "regression" : "improvement"; }

// ---- csv and json: every line with every number ----

text_table line_records(const line_diff& d, const std::vector<line_finding>* findings) {
  std::vector<column> columns;
  for (const char* key :
       {"experiment", "variant", "params", "arch", "baseline_run", "candidate_run", "file", "function", "baseline_line",
        "candidate_line", "source", "opcodes", "baseline_executions", "candidate_executions", "baseline_excess",
        "candidate_excess", "baseline_excess_per_execution", "candidate_excess_per_execution"})
    columns.push_back({key});
  if (findings) columns.push_back({"outcome"});
  text_table t(std::move(columns));
  for (std::size_t ci = 0; ci < d.configurations.size(); ++ci) {
    const auto& c = d.configurations[ci];
    for (std::size_t li = 0; li < c.lines.size(); ++li) {
      const auto& m = c.lines[li];
      auto side_cells = [](const std::optional<line_numbers>& n, auto get) { return n ? get(*n) : cell("", nullptr); };
      std::vector<cell> cells = {c.experiment,
                                 c.variant,
                                 params(c.params_json),
                                 c.arch,
                                 count(c.baseline_run),
                                 count(c.candidate_run),
                                 m.file,
                                 m.function,
                                 side_cells(m.baseline, [](const line_numbers& n) { return count(n.line); }),
                                 side_cells(m.candidate, [](const line_numbers& n) { return count(n.line); }),
                                 m.text,
                                 m.opcodes};
      for (const auto get :
           {+[](const line_numbers& n) { return count(static_cast<std::int64_t>(n.executions)); },
            +[](const line_numbers& n) { return count(static_cast<std::int64_t>(n.excess)); },
            +[](const line_numbers& n) { return cell(shortest(n.per_execution()), n.per_execution()); }})
        for (const auto* n : {&m.baseline, &m.candidate}) cells.push_back(side_cells(*n, get));
      if (findings) {
        const auto f = std::find_if(findings->begin(), findings->end(),
                                    [&](const line_finding& x) { return x.configuration == ci && x.line == li; });
        cells.push_back(f != findings->end()        ? cell(line_outcome_text(f->result))
                        : m.baseline && m.candidate ? cell("unchanged")
                                                    : cell(m.baseline ? "baseline only" : "candidate only"));
      }
      t.add_row(std::move(cells));
    }
  }
  return t;
}

nlohmann::json moves_json(const line_diff& d) {
  auto all = nlohmann::json::array();
  for (const auto& c : d.configurations)
    for (const auto& m : c.moves) {
      auto lines = nlohmann::json::array();
      for (const auto& [from, to] : m.lines) lines.push_back({from, to});
      all.push_back({{"experiment", c.experiment},
                     {"variant", c.variant},
                     {"params", params(c.params_json).value},
                     {"file", m.file},
                     {"function", m.function},
                     {"offset", m.offset ? nlohmann::json(*m.offset) : nlohmann::json(nullptr)},
                     {"lines", lines},
                     {"description", m.describe()}});
    }
  return all;
}

// ---- regress as text ----

text_table finding_table() {
  return text_table({{"experiment"},
                     {"variant"},
                     {"params"},
                     {"line"},
                     {"source"},
                     {"opcodes"},
                     {"excess", align::right},
                     {"per execution", align::right},
                     {"threshold", align::right}});
}

void write_gate_section(std::ostream& out, output_format format, const std::string& title, const text_table& t) {
  const std::string heading = fmt::format("{} ({})", title, t.rows());
  if (format == output_format::markdown)
    out << "### " << heading << "\n\n" << (t.rows() == 0 ? "none\n\n" : "");
  else
    out << heading << (t.rows() == 0 ? ": none\n\n" : "\n");
  if (t.rows() == 0) return;
  t.write(out, format);
  out << '\n';
}

std::string line_verdict(const line_regress_result& r) {
  const std::size_t n = r.gated();
  if (n == 0) return "result: no line regression (exit 0)";
  return fmt::format("result: {} line regression{} (exit 1)", n, n == 1 ? "" : "s");
}

void write_gate_text(const line_regress_result& r, std::ostream& out, output_format format) {
  const bool md = format == output_format::markdown;
  const std::string bullet = md ? "- " : "";
  const auto& d = r.diff;
  if (md) out << "## bankbench regress --lines\n\n";
  out << bullet << "baseline:  " << d.baseline_description << '\n';
  out << bullet << "candidate: " << d.candidate_description << '\n';
  out << bullet
      << fmt::format("compared:  {} configuration{} with per-line data on both sides ({} without), {} source "
                     "line{} on both sides, {} on one side only\n",
                     d.configurations.size(), d.configurations.size() == 1 ? "" : "s", d.without_lines,
                     r.lines_compared, r.lines_compared == 1 ? "" : "s", r.lines_one_side);
  out << bullet
      << fmt::format("allowance: a line's excess wavefronts per execution counts when it moves by more than {:g} "
                     "and {:.1f}% of the baseline; lines match by file name, function and line, or by their "
                     "instructions where the source moved\n\n",
                     r.options.min_effect, 100 * r.options.min_change);
  for (const outcome o : {outcome::regression, outcome::improvement}) {
    text_table t = finding_table();
    for (const auto& f : r.findings) {
      if (f.result != o) continue;
      const auto& c = d.configurations[f.configuration];
      const auto& m = c.lines[f.line];
      t.add_row({c.experiment, short_variant(c.variant), compact_params(c.params_json), place_label(m),
                 source_cell_text(m.text), m.opcodes, excess_change(m), per_execution_change(m),
                 "±" + per_execution_text(f.allowance)});
    }
    write_gate_section(out, format, o == outcome::regression ? "line regressions" : "line improvements", t);
  }
  text_table moved({{"experiment"}, {"variant"}, {"params"}, {"file"}, {"function"}, {"move"}});
  for (const auto& c : d.configurations)
    for (const auto& m : c.moves)
      moved.add_row(
          {c.experiment, short_variant(c.variant), compact_params(c.params_json), m.file, m.function, m.describe()});
  write_gate_section(out, format, "moved lines, compared where they went", moved);
  text_table lonely({{"experiment"}, {"variant"}, {"params"}, {"line"}, {"source"}, {"on"}, {"excess", align::right}});
  for (const auto& c : d.configurations)
    for (const auto& m : c.lines)
      if (!m.baseline || !m.candidate)
        lonely.add_row({c.experiment, short_variant(c.variant), compact_params(c.params_json), place_label(m),
                        source_cell_text(m.text), m.baseline ? "baseline" : "candidate",
                        count(static_cast<std::int64_t>(m.baseline ? m.baseline->excess : m.candidate->excess))});
  write_gate_section(out, format, "lines on one side only, not judged", lonely);
  out << (md ? "**" + line_verdict(r) + "**" : line_verdict(r)) << '\n';
}

} // namespace

std::size_t line_regress_result::gated() const {
  return static_cast<std::size_t>(std::count_if(findings.begin(), findings.end(),
                                                [](const line_finding& f) { return f.result == outcome::regression; }));
}

line_regress_result regress_lines(line_diff diff, const regress_options& options) {
  line_regress_result r;
  r.diff = std::move(diff);
  r.options = options;
  for (std::size_t ci = 0; ci < r.diff.configurations.size(); ++ci) {
    const auto& lines = r.diff.configurations[ci].lines;
    for (std::size_t li = 0; li < lines.size(); ++li) {
      const auto& m = lines[li];
      if (!m.baseline || !m.candidate) {
        ++r.lines_one_side;
        continue;
      }
      ++r.lines_compared;
      const double before = m.baseline->per_execution(), after = m.candidate->per_execution();
      const double allowance = std::max(options.min_effect, options.min_change * std::abs(before));
      if (std::abs(after - before) <= allowance) continue;
      r.findings.push_back({ci, li, after > before ? outcome::regression : outcome::improvement, allowance});
    }
  }
  return r;
}

void write_line_regress(const line_regress_result& r, std::ostream& out, const std::string& format) {
  const output_format f = parse_format(format);
  if (f == output_format::csv) return line_records(r.diff, &r.findings).write(out, f);
  if (f != output_format::json) return write_gate_text(r, out, f);
  const nlohmann::json doc = {
      {"baseline", {{"label", r.diff.baseline_label}, {"description", r.diff.baseline_description}}},
      {"candidate", {{"label", r.diff.candidate_label}, {"description", r.diff.candidate_description}}},
      {"configurations", r.diff.configurations.size()},
      {"configurations_without_lines", r.diff.without_lines},
      {"lines_compared", r.lines_compared},
      {"lines_one_side", r.lines_one_side},
      {"options", {{"min_effect", r.options.min_effect}, {"min_change", r.options.min_change}}},
      {"lines", line_records(r.diff, &r.findings).records()},
      {"moves", moves_json(r.diff)},
      {"regressions", r.gated()},
      {"exit_code", r.gated() > 0 ? 1 : 0}};
  out << doc.dump(2) << '\n';
}

void write_line_compare(const line_diff& d, std::ostream& out, const std::string& format) {
  const output_format f = parse_format(format);
  if (f == output_format::csv) return line_records(d, nullptr).write(out, f);
  if (f == output_format::json) {
    out << nlohmann::json{{"baseline", {{"label", d.baseline_label}, {"description", d.baseline_description}}},
                          {"candidate", {{"label", d.candidate_label}, {"description", d.candidate_description}}},
                          {"lines", line_records(d, nullptr).records()},
                          {"moves", moves_json(d)}}
               .dump(2)
        << '\n';
    return;
  }
  const bool md = f == output_format::markdown;
  out << (md ? "## " : "") << "compare: " << d.baseline_label << " vs " << d.candidate_label << " per source line\n\n";
  out << (md ? "- " : "") << "A: " << d.baseline_description << '\n';
  out << (md ? "- " : "") << "B: " << d.candidate_description << '\n';
  if (d.without_lines > 0)
    out << (md ? "- " : "")
        << fmt::format("{} configuration{} in common without per-line data on both sides\n", d.without_lines,
                       d.without_lines == 1 ? "" : "s");
  for (const auto& c : d.configurations) {
    std::string moves;
    for (const auto& m : c.moves) moves += (moves.empty() ? ": " : "; ") + m.file + " " + m.describe();
    out << '\n' << (md ? "### " : "") << configuration_title(c) << moves << "\n" << (md ? "\n" : "");
    text_table t({{"line"},
                  {"source"},
                  {"opcodes"},
                  {"excess A", align::right},
                  {"excess B", align::right},
                  {"per execution A", align::right},
                  {"per execution B", align::right}});
    for (const auto& m : c.lines) {
      auto excess = [](const std::optional<line_numbers>& n) {
        return n ? count(static_cast<std::int64_t>(n->excess)) : cell("-", nullptr);
      };
      auto per = [](const std::optional<line_numbers>& n) {
        return n ? cell(per_execution_text(n->per_execution()), n->per_execution()) : cell("-", nullptr);
      };
      t.add_row({place_label(m), source_cell_text(m.text), m.opcodes, excess(m.baseline), excess(m.candidate),
                 per(m.baseline), per(m.candidate)});
    }
    t.write(out, f);
  }
  if (d.configurations.empty()) out << "\nno configuration in common has per-line data on both sides\n";
}

} // namespace bb::query
