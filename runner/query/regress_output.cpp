#include "runner/query/regress_output.hpp"

#include <cmath>
#include <functional>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "runner/query/cells.hpp"
#include "runner/query/metric_info.hpp"
#include "runner/query/table.hpp"

namespace bb::query {

namespace {

const char* outcome_name(outcome o) {
  switch (o) {
  case outcome::regression: return "regression";
  case outcome::improvement: return "improvement";
  case outcome::changed: return "changed";
  }
  return "changed";
}

std::string percent(double fraction) { return fmt::format("{:.1f}%", 100 * fraction); }

using predicate = std::function<bool(const finding&)>;

struct section {
  std::string title, note;
  predicate wanted;
};

std::vector<section> sections(const regress_result& r) {
  const bool gate_time = r.options.gate_time;
  auto counter = [](const finding& f) { return f.metric != "median_ns"; };
  return {
      {"regressions", "", [](const finding& f) { return f.gated; }},
      {"improvements", "",
       [=](const finding& f) { return !f.cross_arch && counter(f) && f.result == outcome::improvement; }},
      {"times",
       gate_time ? "gated: a significantly slower time is a regression"
                 : "reported only; --gate-time makes a significantly slower time a regression",
       [](const finding& f) { return !f.cross_arch && f.metric == "median_ns"; }},
      {"other changes", "not judged",
       [=](const finding& f) { return !f.cross_arch && counter(f) && f.result == outcome::changed; }},
      {"across architectures", "reported, never gated", [](const finding& f) { return f.cross_arch; }},
  };
}

text_table findings_table(const regress_result& r, const section& s) {
  // threshold: a counter's allowance, or a time's p value.
  text_table t({{"experiment"},
                {"variant"},
                {"params"},
                {"metric"},
                {"baseline", align::right},
                {"candidate", align::right},
                {"change", align::right},
                {"threshold", align::right},
                {"arch"}});
  for (const auto& f : r.findings) {
    if (!s.wanted(f)) continue;
    const metric_info info = describe_metric(f.metric);
    const std::string arch = f.cross_arch ? f.baseline_arch + " -> " + f.candidate_arch : f.candidate_arch;
    const std::string params = compact_params(f.params_json);
    if (f.metric == "status") {
      t.add_row({f.experiment, short_variant(f.variant), params, "status", f.baseline_status, f.candidate_status, "-",
                 "-", arch});
      continue;
    }
    std::string label = info.label;
    if (s.title == "regressions" && f.metric == "median_ns") label += " (time)";
    t.add_row({f.experiment, short_variant(f.variant), params, label, value_cell(f.baseline, info.scale),
               value_cell(f.candidate, info.scale), change_cell(f.change),
               f.p ? fmt::format("p={:.2g}", *f.p) : "±" + value_cell(f.allowance, info.scale), arch});
  }
  return t;
}

text_table unmatched_table(const std::vector<unmatched>& rows) {
  text_table t({{"experiment"}, {"variant"}, {"params"}, {"arch"}});
  for (const auto& u : rows) t.add_row({u.experiment, short_variant(u.variant), compact_params(u.params_json), u.arch});
  return t;
}

void write_section(std::ostream& out, output_format format, const std::string& title, const std::string& note,
                   const text_table& t) {
  const std::string heading = fmt::format("{} ({}){}", title, t.rows(), note.empty() ? "" : ", " + note);
  if (format == output_format::markdown)
    out << "### " << heading << "\n\n";
  else
    out << heading << (t.rows() == 0 ? ": none\n\n" : "\n");
  if (t.rows() == 0) {
    if (format == output_format::markdown) out << "none\n\n";
    return;
  }
  t.write(out, format);
  out << '\n';
}

std::string verdict(const regress_result& r) {
  const std::size_t n = r.gated();
  if (n == 0) return "result: no regression (exit 0)";
  return fmt::format("result: {} regression{} (exit 1)", n, n == 1 ? "" : "s");
}

void write_text(const regress_result& r, std::ostream& out, output_format format) {
  std::vector<std::string> labels;
  for (const auto& m : r.metrics) labels.push_back(describe_metric(m).label);
  const bool md = format == output_format::markdown;
  const std::string bullet = md ? "- " : "";
  if (md) out << "## bankbench regress\n\n";
  out << bullet << "baseline:  " << r.baseline_description << '\n';
  out << bullet << "candidate: " << r.candidate_description << '\n';
  out << bullet
      << fmt::format("compared:  {} configurations on the same architecture, {} across architectures; metrics: {}; "
                     "times of {}\n",
                     r.compared, r.compared_across, fmt::join(labels, ", "), r.times_compared);
  out << bullet
      << fmt::format(
             "allowance: a change counts beyond {:g} per request (a count: that many per request of its kind) "
             "and {} of the baseline; noise from {} or more runs of the same code may tighten the relative part to "
             "{:g}x the noise; times: p < {:g} and at least {}\n\n",
             r.options.min_effect, percent(r.options.min_change), r.options.noise_repeats, r.options.noise_factor,
             r.options.alpha, percent(r.options.min_time_effect));
  for (const auto& s : sections(r)) write_section(out, format, s.title, s.note, findings_table(r, s));
  write_section(out, format, "missing in the candidate", "", unmatched_table(r.missing));
  write_section(out, format, "new in the candidate", "", unmatched_table(r.added));
  out << (md ? "**" + verdict(r) + "**" : verdict(r)) << '\n';
}

nlohmann::json finite_json(const std::optional<double>& v) {
  if (!v || !std::isfinite(*v)) return nullptr;
  return *v;
}

// Every finding with every digit: CSV's rows and JSON's "findings".
text_table findings_records(const regress_result& r) {
  std::vector<column> columns;
  for (const char* key :
       {"experiment", "variant", "params", "metric", "baseline_arch", "candidate_arch", "baseline", "candidate",
        "change", "allowance", "p", "outcome", "gated", "cross_arch", "baseline_status", "candidate_status"})
    columns.push_back({key});
  text_table t(std::move(columns));
  for (const auto& f : r.findings) {
    auto value = [](const std::optional<double>& v) { return cell("", finite_json(v)); };
    const bool status = f.metric == "status";
    t.add_row({f.experiment, f.variant, params(f.params_json), f.metric, f.baseline_arch, f.candidate_arch,
               value(f.baseline), value(f.candidate), value(f.change), cell("", f.allowance), value(f.p),
               outcome_name(f.result), cell("", f.gated), cell("", f.cross_arch),
               status ? cell(f.baseline_status) : cell("", nullptr),
               status ? cell(f.candidate_status) : cell("", nullptr)});
  }
  return t;
}

text_table unmatched_records(const std::vector<unmatched>& rows) {
  text_table t({{"experiment"}, {"variant"}, {"params"}, {"arch"}});
  for (const auto& u : rows) t.add_row({u.experiment, u.variant, params(u.params_json), u.arch});
  return t;
}

void write_json(const regress_result& r, std::ostream& out) {
  using nlohmann::json;
  const json doc = {
      {"baseline", {{"label", r.baseline_label}, {"description", r.baseline_description}}},
      {"candidate", {{"label", r.candidate_label}, {"description", r.candidate_description}}},
      {"metrics", r.metrics},
      {"compared", r.compared},
      {"compared_across_architectures", r.compared_across},
      {"judged", r.judged},
      {"times_compared", r.times_compared},
      {"options",
       {{"min_effect", r.options.min_effect},
        {"min_change", r.options.min_change},
        {"noise_factor", r.options.noise_factor},
        {"min_time_effect", r.options.min_time_effect},
        {"alpha", r.options.alpha},
        {"gate_time", r.options.gate_time}}},
      {"findings", findings_records(r).records()},
      {"missing", unmatched_records(r.missing).records()},
      {"added", unmatched_records(r.added).records()},
      {"regressions", r.gated()},
      {"exit_code", r.gated() > 0 ? 1 : 0},
  };
  out << doc.dump(2) << '\n';
}

} // namespace

std::string change_cell(const std::optional<double>& change) {
  if (!change) return "from 0";
  return fmt::format("{:+.1f}%", 100 * *change);
}

std::string value_cell(const std::optional<double>& value, double scale) {
  if (!value) return "-";
  const double v = *value * scale;
  if (std::abs(v) >= 10000) return fmt::format("{:.0f}", v);
  return fmt::format("{:.4g}", v);
}

void write_regress(const regress_result& r, std::ostream& out, const std::string& format) {
  switch (const auto f = parse_format(format)) {
  case output_format::json: write_json(r, out); break;
  case output_format::csv: findings_records(r).write(out, f); break;
  default: write_text(r, out, f);
  }
}

} // namespace bb::query
