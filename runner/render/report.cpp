#include "runner/render/report.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "runner/common/backend.hpp"
#include "runner/common/error.hpp"
#include "runner/common/metrics.hpp"
#include "runner/query/cells.hpp"
#include "runner/query/metric_info.hpp"
#include "runner/query/regress_output.hpp"
#include "runner/query/selector.hpp"
#include "runner/render/report_charts.hpp"
#include "runner/render/report_html.hpp"
#include "runner/render/report_lines.hpp"
#include "runner/render/svg.hpp"

namespace bb::render {

using query::change_cell;
using query::compact_params;
using query::default_regress_metrics;
using query::describe_metric;
using query::describe_run;
using query::finding;
using query::latest_per_gpu;
using query::learn_noise;
using query::metric_info;
using query::outcome;
using query::regress;
using query::regress_result;
using query::runs_before;
using query::short_commit;
using query::short_fingerprint;
using query::short_variant;
using query::side;
using query::side_of_runs;
using query::value_cell;

namespace {

using run_rows = std::pair<store::run_info, std::vector<store::result_row>>;

struct report_section {
  std::string html;
  int charts = 0, failed_expectations = 0, regressions = 0;
  std::map<config_status, int> statuses; ///< configurations of the newest run by status

  void add(const std::optional<std::string>& figure) {
    if (!figure) return;
    html += *figure;
    ++charts;
  }
  void add(const std::vector<std::string>& figures) {
    for (const auto& f : figures) add(std::optional<std::string>(f));
  }
};

std::string anchor(const std::string& experiment) {
  std::string out = "exp-";
  for (char c : experiment) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  return out;
}

std::string runs_table(const std::vector<run_rows>& runs) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& [r, configs] : runs)
    rows.push_back({std::to_string(r.id), r.session_id == 0 ? "-" : std::to_string(r.session_id), r.gpu_name, r.arch,
                    short_commit(r), short_fingerprint(r), r.started_at, name_of(r.status),
                    std::to_string(configs.size())});
  return html::table({"run", "session", "gpu", "arch", "commit", "fingerprint", "started", "status", "configurations"},
                     rows);
}

void failed_expectations(report_section& s, const std::vector<run_rows>& runs) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> not_modelled; // what the model cannot predict is no failure
  for (const auto& [run, configs] : runs)
    for (const auto& c : configs) {
      for (const auto& e : c.failed_expectations)
        rows.push_back(
            {std::to_string(run.id), run.arch, short_variant(c.variant), compact_params(c.params_json), e.text});
      if (c.status == config_status::not_modelled) {
        const std::string v = short_variant(c.variant);
        if (std::find(not_modelled.begin(), not_modelled.end(), v) == not_modelled.end()) not_modelled.push_back(v);
      } else if (c.status != config_status::ok && c.status != config_status::skipped &&
                 c.status != config_status::unverified) // ran; only its output had nothing to be checked against
        rows.push_back({std::to_string(run.id), run.arch, short_variant(c.variant), compact_params(c.params_json),
                        std::string("status ") + name_of(c.status)});
    }
  s.html += "<h3>Failed expectations and configurations</h3>\n";
  s.failed_expectations += static_cast<int>(rows.size());
  if (!not_modelled.empty())
    s.html += html::note(
        fmt::format("not modelled (no access plan, or kernel code the model cannot follow; a GPU run measures {}): {}",
                    not_modelled.size() == 1 ? "it" : "them", fmt::join(not_modelled, ", ")));
  int checked = 0;
  for (const auto& [run, configs] : runs)
    for (const auto& c : configs) checked += c.checked_expectations;
  if (rows.empty()) {
    // No failure is a pass only where expectations were checked: a model run of variants it
    // cannot predict, or an experiment without expectations, checked none.
    s.html += checked == 0
                  ? "<p><span class=\"badge\">none checked</span> no expectation of these runs was checked</p>\n"
                  : fmt::format("<p><span class=\"badge ok\">none</span> every expectation of these runs was met "
                                "({} checked)</p>\n",
                                checked);
    return;
  }
  s.html += html::table({"run", "arch", "variant", "params", "what failed"}, rows,
                        std::vector<std::string>(rows.size(), "bad"));
}

void regressions(report_section& s, const store::database& db, const std::vector<store::run_info>& all,
                 const store::run_info& main, const report_options& o) {
  s.html += "<h3>Regressions against the previous run</h3>\n";
  const auto before = runs_before(all, {main});
  if (before.empty()) {
    s.html += html::note(
        fmt::format("no earlier run of {} on {} to compare run {} with", main.experiment_name, main.arch, main.id));
    return;
  }
  const store::result_query q{{}, true};
  const side baseline = side_of_runs(fmt::format("run {}", before.front().id), before,
                                     store::read_results(db, {before.front().id}, q));
  const side candidate = side_of_runs(fmt::format("run {}", main.id), {main}, store::read_results(db, {main.id}, q));
  const auto metrics = o.regress.metrics.empty() ? default_regress_metrics() : o.regress.metrics;
  const auto noise = learn_noise(db, {{main.experiment_name, main.arch}}, {main.id}, metrics);
  const regress_result r = regress(baseline, candidate, noise, o.regress);
  s.regressions += static_cast<int>(r.gated());
  // Regressions first, then slower times and other changes, improvements last.
  auto rank = [](const finding& f) { return f.gated ? 0 : f.result == outcome::improvement ? 2 : 1; };
  std::vector<finding> findings = r.findings;
  std::stable_sort(findings.begin(), findings.end(),
                   [&](const finding& a, const finding& b) { return rank(a) < rank(b); });
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> classes;
  for (const auto& f : findings) {
    const metric_info info = describe_metric(f.metric);
    const bool status = f.metric == "status";
    rows.push_back({f.gated                            ? "regression"
                    : f.result == outcome::improvement ? "improvement"
                    : f.result == outcome::regression  ? "slower (not gated)"
                                                       : "changed",
                    short_variant(f.variant), compact_params(f.params_json), status ? "status" : info.label,
                    status ? f.baseline_status : value_cell(f.baseline, info.scale),
                    status ? f.candidate_status : value_cell(f.candidate, info.scale),
                    status ? "-" : change_cell(f.change)});
    classes.push_back(f.gated ? "bad" : f.result == outcome::improvement ? "good" : "");
  }
  s.html += fmt::format("<p>run {} against run {} ({}, commit {}): <span class=\"badge {}\">{}</span></p>\n", main.id,
                        before.front().id, before.front().arch, short_commit(before.front()),
                        r.gated() > 0 ? "bad" : "ok",
                        r.gated() > 0 ? fmt::format("{} regression{}", r.gated(), r.gated() == 1 ? "" : "s")
                                      : "no regression");
  if (!rows.empty())
    s.html += html::table({"finding", "variant", "params", "metric", "before", "now", "change"}, rows, classes);
}

report_section experiment_section(const store::database& db, const std::vector<store::run_info>& all,
                                  const std::string& experiment, const report_options& o) {
  const auto per_gpu = latest_per_gpu(all, experiment);
  // The newest measured run leads; the model's predictions are drawn beside it.
  const store::run_info* main = nullptr;
  for (const auto& r : per_gpu)
    if (names_backend(r.backend, backend::cupti) && (main == nullptr || r.id > main->id)) main = &r;
  if (main == nullptr)
    main = &*std::max_element(per_gpu.begin(), per_gpu.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  std::vector<run_rows> runs;
  for (const auto& r : per_gpu) runs.emplace_back(r, store::read_results(db, {r.id}));
  const auto& main_rows =
      std::find_if(runs.begin(), runs.end(), [&](const auto& p) { return p.first.id == main->id; })->second;

  report_section s;
  for (const auto& r : main_rows) ++s.statuses[r.status];
  s.html += fmt::format("<section id=\"{}\">\n<h2>{}</h2>\n<p>{}</p>\n", anchor(experiment), svg::escape(experiment),
                        svg::escape(describe_run(*main)));
  s.html += runs_table(runs);
  const bool model_only = names_backend(main->backend,
                                        backend::model); // no GPU run of this experiment: predictions alone
  const std::string context = model_only ? fmt::format("Run {}: the bank model's predictions, no GPU.", main->id)
                                         : fmt::format("Run {} on {} ({}).", main->id, main->gpu_name, main->arch);
  s.html += model_only ? "<h3>Wavefronts and conflicts per request by variant, predicted by the bank model</h3>\n"
                       : "<h3>Wavefronts and conflicts per request by variant</h3>\n";
  for (const char* m : {"load_wavefronts_per_request", "store_wavefronts_per_request", "load_conflicts_per_request",
                        "store_conflicts_per_request"})
    s.add(report_charts::by_parameters(main_rows, m, context));
  // The other access kinds this experiment executed (ldmatrix, atomics, cp.async, ...): a chart each.
  for (const auto& k : metrics::access_kinds()) {
    const std::string kind = k.name;
    if (kind == "lds" || kind == "sts" || kind == "tma") continue;
    const bool used = std::any_of(main_rows.begin(), main_rows.end(), [&](const auto& r) {
      const auto it = r.metrics.find(kind + "_requests");
      return it != r.metrics.end() && it->second.mean > 0;
    });
    if (used) s.add(report_charts::by_parameters(main_rows, kind + "_wavefronts_per_request", context));
  }
  if (s.charts == 0) // the heading says what is missing rather than standing over nothing
    s.html += html::note(model_only ? "no predictions: the bank model does not predict these variants (not modelled); "
                                      "run the experiment on a GPU to measure them"
                                    : "no shared-memory counters in this run (run without --no-counters)");
  s.html += "<h3>Time and bandwidth against size</h3>\n";
  const int before = s.charts;
  if (!model_only)
    for (const char* m : {"median_ns", "bandwidth_gbps"}) s.add(report_charts::against_size(main_rows, m, context));
  if (model_only)
    s.html += html::note("the bank model predicts counters and times nothing: run on a GPU for times");
  else if (s.charts == before)
    s.html += html::note("no timing against a numeric size parameter in this run");
  s.html += "<h3>Across GPUs</h3>\n";
  const int across = s.charts;
  for (const char* m : {"load_wavefronts_per_request", "median_ns"}) s.add(report_charts::across_gpus(runs, m));
  if (s.charts == across)
    s.html += html::note(model_only ? "the bank model only: run the experiment on a GPU to compare"
                                    : "one GPU only: run the experiment on another GPU, or with --backend model");
  s.html += "<h3>Predicted against measured</h3>\n";
  std::vector<store::result_row> model_rows;
  for (const auto& [r, rows] : runs)
    if (names_backend(r.backend, backend::model)) model_rows.insert(model_rows.end(), rows.begin(), rows.end());
  const int predicted = s.charts;
  if (model_only) // never the model against itself
    s.html += html::note("no measured run of this experiment to set the predictions against");
  else
    s.add(report_charts::predicted_vs_measured(main_rows, model_rows));
  if (!model_only && s.charts == predicted) s.html += html::note("no prediction of the bank model for these variants");
  failed_expectations(s, runs);
  regressions(s, db, all, *main, o);
  // Per-line data of the runs shown and of the run the regressions were judged against.
  std::vector<store::result_row> line_rows;
  std::vector<std::int64_t> shown;
  for (const auto& [r, rows] : runs) shown.push_back(r.id);
  if (const auto previous = runs_before(all, {*main}); !previous.empty()) shown.push_back(previous.front().id);
  std::sort(shown.begin(), shown.end());
  shown.erase(std::unique(shown.begin(), shown.end()), shown.end());
  for (const auto id : shown) {
    const auto it = std::find_if(runs.begin(), runs.end(), [&](const auto& p) { return p.first.id == id; });
    const auto rows = it != runs.end() ? it->second : store::read_results(db, {id});
    line_rows.insert(line_rows.end(), rows.begin(), rows.end());
  }
  s.html += report_lines::annotated_sources(db, line_rows);
  s.html += "</section>\n";
  return s;
}

} // namespace

report_summary write_report(const store::database& db, const report_options& o, std::ostream& out) {
  const auto all = store::run_infos(db);
  std::vector<std::string> experiments;
  for (const auto& r : all)
    if (std::find(experiments.begin(), experiments.end(), r.experiment_name) == experiments.end())
      experiments.push_back(r.experiment_name);
  if (!o.experiments.empty()) {
    for (const auto& e : o.experiments)
      if (std::find(experiments.begin(), experiments.end(), e) == experiments.end())
        throw usage_error(fmt::format("no run of experiment '{}' in {}", e, db.path()));
    experiments = o.experiments;
  }
  report_summary summary;
  std::map<config_status, int> statuses;
  std::string body;
  for (const auto& e : experiments) {
    const report_section s = experiment_section(db, all, e, o);
    body += s.html;
    ++summary.experiments;
    summary.charts += s.charts;
    summary.failed_expectations += s.failed_expectations;
    summary.regressions += s.regressions;
    for (const auto& [status, n] : s.statuses) statuses[status] += n;
  }
  out << html::page_start("bankbench report");
  out << "<h1>bankbench report</h1>\n";
  out << fmt::format("<p>{} runs in {}; generated {} by bankbench {}.</p>\n", all.size(), svg::escape(db.path()),
                     svg::escape(o.generated_at), BB_VERSION);
  out << fmt::format("<p id=\"highlights\"><span class=\"badge {}\">{} failed expectation{}</span> "
                     "<span class=\"badge {}\">{} regression{}</span></p>\n",
                     summary.failed_expectations > 0 ? "bad" : "ok", summary.failed_expectations,
                     summary.failed_expectations == 1 ? "" : "s", summary.regressions > 0 ? "bad" : "ok",
                     summary.regressions, summary.regressions == 1 ? "" : "s");
  if (!statuses.empty()) { // what each count is, failures by name: "603 ok, 2 not modelled"
    std::vector<std::string> parts;
    for (const auto st : k_config_statuses) // in the schema's order
      if (const auto it = statuses.find(st); it != statuses.end())
        parts.push_back(
            fmt::format("{} {}", it->second, st == config_status::not_modelled ? "not modelled" : name_of(st)));
    out << fmt::format("<p id=\"statuses\">configurations in the newest run of each experiment: {}</p>\n",
                       svg::escape(fmt::format("{}", fmt::join(parts, ", "))));
  }
  out << "<nav>";
  for (const auto& e : experiments) out << fmt::format("<a href=\"#{}\">{}</a>", anchor(e), svg::escape(e));
  out << "</nav>\n" << body;
  if (experiments.empty()) out << html::note("the database holds no runs yet");
  out << "</body>\n</html>\n";
  return summary;
}

} // namespace bb::render
