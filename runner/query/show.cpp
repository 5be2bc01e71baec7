#include "runner/query/show.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runner/common/backend.hpp"
#include "runner/common/error.hpp"
#include "runner/common/metrics.hpp"
#include "runner/model/rules.hpp"
#include "runner/query/cells.hpp"

namespace bb::query {

namespace {

struct metric_column {
  const char* header; ///< table and markdown; csv heads the column with the metric's name
  const char* metric;
  int decimals;
};

// Derived metric names from common/metrics.cpp; means over launches.
constexpr metric_column k_metric_columns[] = {
    {"ld req", "load_requests", 0},
    {"ld wf/req", "load_wavefronts_per_request", 2},
    {"ld conflicts/req", "load_conflicts_per_request", 2},
    {"st wf/req", "store_wavefronts_per_request", 2},
    {"st conflicts/req", "store_conflicts_per_request", 2},
};

std::string cuda_version(int v) { return fmt::format("{}.{}", v / 1000, (v % 1000) / 10); }

// The bank model's prediction, shown after "ld wf/req" when the run stored one (header-only
// model/rules.hpp says how far a measurement may stray).
constexpr const char* k_predicted_ld_wf = "predicted_load_wavefronts_per_request";
constexpr const char* k_measured_ld_wf = "load_wavefronts_per_request";

std::optional<double> mean_of(const store::configuration_row& c, const char* metric) {
  const auto it = c.metric_means.find(metric);
  if (it == c.metric_means.end()) return std::nullopt;
  return it->second;
}

/// A finished configuration whose measured load wavefronts per request are outside the allowance.
bool mismatch(const store::configuration_row& c) {
  const auto measured = mean_of(c, k_measured_ld_wf), predicted = mean_of(c, k_predicted_ld_wf);
  // Lost arbitrations, where collected (access_kinds), are no model error (model/rules.hpp).
  const auto arbitration = mean_of(c, "arbitration_conflicts"), requests = mean_of(c, "load_requests");
  const double arbitration_per_request = arbitration && requests && *requests > 0 ? *arbitration / *requests : 0;
  return c.status == config_status::ok && measured && predicted &&
         !model::agrees(*measured, *predicted, arbitration_per_request);
}

struct predictions {
  /// Access kinds beyond LDS/STS (ldsm, atom, ...) some configuration executed: each gets
  /// "<kind> req", "<kind> wf/req" and "<kind> conflicts/req" columns.
  std::vector<std::string> kinds;
  bool shown = false;   ///< some configuration carries a prediction beside a measurement
  bool flagged = false; ///< some configuration disagrees with it
  bool model = false;   ///< the run is the bank model's: its counters are predictions, nothing is timed
};

// "pass", or "FAIL: " and the failed ones with what was observed; "-" and null without expectations.
cell expectations_cell(const store::configuration_row& c) {
  if (c.expectations.empty()) return {"-", nullptr};
  std::string failed;
  for (const auto& e : c.expectations) {
    if (e.passed) continue;
    failed += failed.empty() ? "FAIL: " : "; ";
    failed += e.text + (e.observed ? fmt::format(" (observed {:.6g})", *e.observed) : " (not measured)");
  }
  return failed.empty() ? "pass" : failed;
}

std::string kind_heading(std::string_view suffix) {
  if (suffix == "_requests") return " req";
  if (suffix == "_wavefronts_per_request") return " wf/req";
  return " conflicts/req";
}

// csv and json name columns by metric and keep status and reason apart; a run id first where
// several runs share the table.
text_table make_table(output_format format, const predictions& p, bool run_column) {
  const bool machine = for_programs(format);
  std::vector<column> columns;
  if (run_column) columns.push_back({"run_id", align::right});
  if (machine) columns.push_back({"seq", align::right});
  columns.push_back({"variant", align::left});
  columns.push_back({"params", align::left, format == output_format::csv ? "params_json" : ""});
  columns.push_back({"status", align::left});
  if (machine) columns.push_back({"reason", align::left});
  for (const auto& m : k_metric_columns) {
    columns.push_back({m.header, align::right, m.metric});
    if (p.shown && m.metric == std::string_view(k_measured_ld_wf))
      columns.push_back({"pred wf/req", align::right, k_predicted_ld_wf});
  }
  for (const auto& k : p.kinds)
    for (const char* what : {"_requests", "_wavefronts_per_request", "_conflicts_per_request"})
      columns.push_back({k + kind_heading(what), align::right, k + what});
  if (!p.model) {
    columns.push_back({"median us", align::right, "median_ns"});
    columns.push_back({"GB/s", align::right, "bandwidth_gbps"});
  }
  columns.push_back({"expectations", align::left});
  return text_table(std::move(columns));
}

void add_row(text_table& table, std::int64_t run_id, const store::configuration_row& c, output_format format,
             const predictions& p, bool run_column) {
  const bool machine = for_programs(format);
  const bool ok = c.status == config_status::ok ||
                  c.status == config_status::unverified; // unverified: measured, output not checked
  // A configuration that did not finish has no numbers worth reading, even where some were taken.
  auto value = [&](std::optional<double> v) { return ok ? v : std::nullopt; };
  auto mean = [&](const std::string& metric) { return value(mean_of(c, metric.c_str())); };
  std::vector<cell> cells;
  if (run_column) cells.push_back(count(run_id));
  if (machine) cells.push_back(count(c.seq));
  if (machine) {
    cells.push_back(c.variant);
    // csv: the text as stored, so that it reads back the same; json: the object.
    cells.push_back(format == output_format::csv ? cell("", c.params_json) : params(c.params_json));
    cells.push_back(name_of(c.status));
    cells.push_back(c.reason);
  } else {
    cells.push_back(variant(c.variant));
    cells.push_back(params(c.params_json));
    cells.push_back(c.reason.empty() ? name_of(c.status) : name_of(c.status) + (": " + c.reason));
  }
  for (const auto& m : k_metric_columns) {
    cells.push_back(number(mean(m.metric), m.decimals));
    if (!p.shown || m.metric != std::string_view(k_measured_ld_wf)) continue;
    cell predicted = number(mean(k_predicted_ld_wf), m.decimals);
    if (p.flagged) predicted.text += mismatch(c) ? "!" : " "; // "!" keeps the numbers aligned
    cells.push_back(std::move(predicted));
  }
  for (const auto& k : p.kinds)
    for (const char* what : {"_requests", "_wavefronts_per_request", "_conflicts_per_request"})
      cells.push_back(number(mean(k + what), std::string_view(what) == "_requests" ? 0 : 2));
  if (!p.model) {
    std::optional<double> median_ns, gbps;
    if (c.timing) {
      median_ns = value(c.timing->median_ns);
      gbps = value(c.timing->bandwidth_gbps);
    }
    cell median = number(median_ns, 0);
    if (!machine) median.text = number(median_ns ? std::optional(*median_ns / 1000) : std::nullopt, 2).text;
    cells.push_back(std::move(median));
    cells.push_back(number(gbps, 1));
  }
  cells.push_back(expectations_cell(c));
  table.add_row(std::move(cells));
}

void write_header(const store::run_detail& d, std::ostream& out, output_format format) {
  const auto& g = d.gpu;
  std::string gpu = g.name;
  if (names_backend(g.backend, backend::model))
    gpu += g.chip.empty() ? " (predicted, no GPU)" : fmt::format(" ({}; predicted, no GPU)", g.chip);
  else if (!g.chip.empty())
    gpu += fmt::format(" ({}, cc {}.{})", g.chip, g.cc_major, g.cc_minor);
  else
    gpu += fmt::format(" (cc {}.{})", g.cc_major, g.cc_minor);
  if (!g.driver_version.empty()) gpu += ", driver " + g.driver_version;
  if (g.cuda_driver_version > 0) gpu += ", CUDA " + cuda_version(g.cuda_driver_version);
  std::string commit = d.run.git_commit.empty() ? "unknown" : d.run.git_commit;
  if (d.run.git_dirty) commit += "-dirty";
  if (!d.run.fingerprint.empty()) commit += ", fingerprint " + d.run.fingerprint.substr(0, 12);
  if (d.run.session_id != 0) commit += fmt::format(", session {}", d.run.session_id);
  std::vector<std::pair<std::string, std::string>> lines = {
      {"gpu", gpu},
      {"started", d.run.started_at},
      {"finished", d.finished_at.empty() ? "-" : d.finished_at},
      {"status", name_of(d.status)},
      {"commit", commit},
  };
  // A run of `bankbench attach` profiled a program's own kernels: where it ran and how it ended.
  const bool attach = d.run.kind == "attach";
  if (attach) {
    lines.emplace_back("kind", d.run.kind);
    if (!d.run.working_directory.empty()) lines.emplace_back("working directory", d.run.working_directory);
    if (d.program_exit) lines.emplace_back("program exit", std::to_string(*d.program_exit));
    if (!d.note.empty()) lines.emplace_back("note", d.note);
  }
  const std::pair<std::string, std::string> what = {attach ? "attached to" : "experiment", d.run.experiment_path};
  if (format == output_format::markdown) {
    out << fmt::format("## Run {}: {}\n\n", d.id, d.run.experiment_name);
    out << fmt::format("- {}: `{}`\n", what.first, what.second);
    for (const auto& [key, value] : lines) out << fmt::format("- {}: {}\n", key, value);
  } else {
    std::size_t width = 10;
    if (attach) {
      out << fmt::format("run {}: {} (attach)\n", d.id, d.run.experiment_name);
      lines.insert(lines.begin(), what);
      for (const auto& line : lines) width = std::max(width, line.first.size() + 2);
    } else {
      out << fmt::format("run {}: {} ({})\n", d.id, d.run.experiment_name, d.run.experiment_path);
    }
    for (const auto& [key, value] : lines) out << fmt::format("{:<{}}{}\n", key + ":", width, value);
  }
  out << '\n';
}

std::string summary(const std::vector<store::configuration_row>& rows) {
  // Statuses in the order of the schema's CHECK; ok is always named, the others when present.
  std::map<config_status, int> count;
  int met = 0, failed = 0;
  for (const auto& c : rows) {
    ++count[c.status];
    for (const auto& e : c.expectations) ++(e.passed ? met : failed);
  }
  std::string line = fmt::format("configurations: {} ok", count[config_status::ok]);
  for (const auto s : k_config_statuses)
    if (s != config_status::ok && count[s] > 0) line += fmt::format(", {} {}", count[s], name_of(s));
  line += met + failed == 0 ? "; expectations: none" : fmt::format("; expectations: {} met, {} failed", met, failed);
  return line;
}

// What `show` reads for one run.
struct shown_run {
  store::run_detail detail;
  std::vector<store::configuration_row> rows;
};

void look_at(predictions& p, const store::configuration_row& c) {
  p.shown = p.shown || (!p.model && c.metric_means.count(k_predicted_ld_wf) > 0);
  for (const auto& k : metrics::access_kinds()) {
    const std::string kind = k.name;
    if (kind == "lds" || kind == "sts" || kind == "tma") continue; // lds/sts are the ld/st columns less LDSM/STSM
    const auto req = mean_of(c, (kind + "_requests").c_str());
    if (req && *req > 0 && std::find(p.kinds.begin(), p.kinds.end(), kind) == p.kinds.end()) p.kinds.push_back(kind);
  }
  p.flagged = p.flagged || mismatch(c);
}

// The columns `runs` need together: a table of model runs alone has no times.
predictions predictions_of(const std::vector<shown_run>& runs) {
  predictions p;
  p.model = true;
  for (const auto& r : runs) p.model = p.model && names_backend(r.detail.gpu.backend, backend::model);
  for (const auto& r : runs)
    for (const auto& c : r.rows) look_at(p, c);
  return p;
}

nlohmann::json run_json(const shown_run& r, const text_table& table) {
  const auto& d = r.detail;
  const auto& g = d.gpu;
  auto text = [](const std::string& t) { return t.empty() ? nlohmann::json(nullptr) : nlohmann::json(t); };
  std::map<std::string, int> statuses;
  int met = 0, failed = 0;
  for (const auto& c : r.rows) {
    ++statuses[name_of(c.status)];
    for (const auto& e : c.expectations) ++(e.passed ? met : failed);
  }
  return {{"run_id", d.id},
          {"experiment", d.run.experiment_name},
          {"experiment_path", d.run.experiment_path},
          {"status", d.status},
          {"started_at", d.run.started_at},
          {"finished_at", text(d.finished_at)},
          {"git_commit", text(d.run.git_commit)},
          {"git_dirty", d.run.git_dirty},
          {"fingerprint", text(d.run.fingerprint)},
          {"session_id", d.run.session_id == 0 ? nlohmann::json(nullptr) : nlohmann::json(d.run.session_id)},
          {"kind", d.run.kind},
          {"working_directory", text(d.run.working_directory)},
          {"program_exit", d.program_exit ? nlohmann::json(*d.program_exit) : nlohmann::json(nullptr)},
          {"note", text(d.note)},
          {"gpu",
           {{"name", g.name},
            {"uuid", g.uuid},
            {"backend", g.backend},
            {"chip", text(g.chip)},
            {"cc", fmt::format("{}.{}", g.cc_major, g.cc_minor)},
            {"driver_version", text(g.driver_version)},
            {"cuda_driver_version", g.cuda_driver_version}}},
          {"configurations", table.records()},
          {"statuses", statuses},
          {"expectations", {{"met", met}, {"failed", failed}}}};
}

} // namespace

void show_runs(const store::database& db, const std::vector<std::int64_t>& run_ids, std::ostream& out,
               output_format format) {
  std::vector<shown_run> runs;
  for (const auto id : run_ids) {
    auto detail = db.run(id);
    if (!detail)
      throw usage_error(fmt::format("no run {} in {}; `bankbench list runs` lists the runs there", id, db.path()));
    runs.push_back({std::move(*detail), db.configurations(id)});
  }
  if (format == output_format::csv) {
    const bool several = runs.size() > 1;
    const predictions p = predictions_of(runs);
    text_table table = make_table(format, p, several);
    for (const auto& r : runs)
      for (const auto& c : r.rows) add_row(table, r.detail.id, c, format, p, several);
    table.write(out, format);
    return;
  }
  if (format == output_format::json) {
    nlohmann::json all = nlohmann::json::array();
    for (const auto& r : runs) {
      const predictions p = predictions_of({r});
      text_table table = make_table(format, p, false);
      for (const auto& c : r.rows) add_row(table, r.detail.id, c, format, p, false);
      all.push_back(run_json(r, table));
    }
    out << nlohmann::json{{"runs", all}}.dump(2) << '\n';
    return;
  }
  bool first = true;
  for (const auto& r : runs) {
    if (!first) out << '\n';
    first = false;
    const predictions p = predictions_of({r});
    text_table table = make_table(format, p, false);
    for (const auto& c : r.rows) add_row(table, r.detail.id, c, format, p, false);
    write_header(r.detail, out, format);
    table.write(out, format);
    if (p.flagged)
      out << fmt::format(
          "\n! measured ld wf/req differs from the bank model's prediction by more than max({:g}% of it, "
          "{:g}); see docs/bank-model.md\n",
          100 * model::k_allowance_relative, model::k_allowance_absolute);
    out << '\n' << summary(r.rows) << '\n';
  }
}

} // namespace bb::query
