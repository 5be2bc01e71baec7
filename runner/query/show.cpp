#include "query/show.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "common/backend.hpp"
#include "common/error.hpp"
#include "common/metrics.hpp"
#include "model/rules.hpp"
#include "query/cells.hpp"

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

std::string expectations_cell(const store::configuration_row& c, output_format format) {
  if (c.expectations.empty()) return format == output_format::csv ? "" : "-";
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

text_table make_table(output_format format, const predictions& p) {
  const bool csv = format == output_format::csv;
  std::vector<column> columns;
  if (csv) columns.push_back({"seq", align::right});
  columns.push_back({"variant", align::left});
  columns.push_back({csv ? "params_json" : "params", align::left});
  columns.push_back({"status", align::left});
  if (csv) columns.push_back({"reason", align::left});
  for (const auto& m : k_metric_columns) {
    columns.push_back({csv ? m.metric : m.header, align::right});
    if (p.shown && m.metric == std::string_view(k_measured_ld_wf))
      columns.push_back({csv ? k_predicted_ld_wf : "pred wf/req", align::right});
  }
  for (const auto& k : p.kinds)
    for (const char* what : {"_requests", "_wavefronts_per_request", "_conflicts_per_request"})
      columns.push_back({csv ? k + what : k + kind_heading(what), align::right});
  if (!p.model) {
    columns.push_back({csv ? "median_ns" : "median us", align::right});
    columns.push_back({csv ? "bandwidth_gbps" : "GB/s", align::right});
  }
  columns.push_back({"expectations", align::left});
  return text_table(std::move(columns));
}

void add_row(text_table& table, const store::configuration_row& c, output_format format, const predictions& p) {
  const bool csv = format == output_format::csv;
  const bool ok = c.status == config_status::ok || c.status == config_status::unverified; // unverified: measured, output not checked
  // A configuration that did not finish has no numbers worth reading, even where some were taken.
  auto value = [&](std::optional<double> v) { return ok ? v : std::nullopt; };
  auto mean = [&](const char* metric) -> std::optional<double> {
    const auto it = c.metric_means.find(metric);
    if (it == c.metric_means.end()) return std::nullopt;
    return it->second;
  };
  std::vector<std::string> cells;
  if (csv) cells.push_back(std::to_string(c.seq));
  cells.push_back(csv ? c.variant : short_variant(c.variant));
  const std::string params = compact_params(c.params_json);
  cells.push_back(csv ? c.params_json : params.empty() ? "-" : params);
  if (csv) {
    cells.push_back(name_of(c.status));
    cells.push_back(c.reason);
  } else {
    cells.push_back(c.reason.empty() ? name_of(c.status) : name_of(c.status) + (": " + c.reason));
  }
  for (const auto& m : k_metric_columns) {
    cells.push_back(number_cell(value(mean(m.metric)), m.decimals, format));
    if (!p.shown || m.metric != std::string_view(k_measured_ld_wf)) continue;
    std::string cell = number_cell(value(mean(k_predicted_ld_wf)), m.decimals, format);
    if (!csv && p.flagged) cell += mismatch(c) ? "!" : " "; // "!" keeps the numbers aligned
    cells.push_back(std::move(cell));
  }
  for (const auto& k : p.kinds)
    for (const char* what : {"_requests", "_wavefronts_per_request", "_conflicts_per_request"})
      cells.push_back(number_cell(value(mean((k + what).c_str())), std::string_view(what) == "_requests" ? 0 : 2, format));
  if (p.model) {
    cells.push_back(expectations_cell(c, format));
    table.add_row(std::move(cells));
    return;
  }
  std::optional<double> median_ns, gbps;
  if (c.timing) {
    median_ns = c.timing->median_ns;
    gbps = c.timing->bandwidth_gbps;
  }
  if (csv) {
    cells.push_back(number_cell(value(median_ns), 0, format));
  } else {
    cells.push_back(number_cell(value(median_ns ? std::optional(*median_ns / 1000) : std::nullopt), 2, format));
  }
  cells.push_back(number_cell(value(gbps), 1, format));
  cells.push_back(expectations_cell(c, format));
  table.add_row(std::move(cells));
}

void write_header(const store::run_detail& d, std::ostream& out, output_format format) {
  const auto& g = d.gpu;
  std::string gpu = g.name;
  if (names_backend(g.backend, backend::model)) gpu += g.chip.empty() ? " (predicted, no GPU)" : fmt::format(" ({}; predicted, no GPU)", g.chip);
  else if (!g.chip.empty()) gpu += fmt::format(" ({}, cc {}.{})", g.chip, g.cc_major, g.cc_minor);
  else gpu += fmt::format(" (cc {}.{})", g.cc_major, g.cc_minor);
  if (!g.driver_version.empty()) gpu += ", driver " + g.driver_version;
  if (g.cuda_driver_version > 0) gpu += ", CUDA " + cuda_version(g.cuda_driver_version);
  std::string commit = d.run.git_commit.empty() ? "unknown" : d.run.git_commit;
  if (d.run.git_dirty) commit += "-dirty";
  if (!d.run.fingerprint.empty()) commit += ", fingerprint " + d.run.fingerprint.substr(0, 12);
  if (d.run.session_id != 0) commit += fmt::format(", session {}", d.run.session_id);
  const std::pair<const char*, std::string> lines[] = {
      {"gpu", gpu},
      {"started", d.run.started_at},
      {"finished", d.finished_at.empty() ? "-" : d.finished_at},
      {"status", d.status},
      {"commit", commit},
  };
  if (format == output_format::markdown) {
    out << fmt::format("## Run {}: {}\n\n", d.id, d.run.experiment_name);
    out << fmt::format("- experiment: `{}`\n", d.run.experiment_path);
    for (const auto& [key, value] : lines) out << fmt::format("- {}: {}\n", key, value);
  } else {
    out << fmt::format("run {}: {} ({})\n", d.id, d.run.experiment_name, d.run.experiment_path);
    for (const auto& [key, value] : lines) out << fmt::format("{:<10}{}\n", std::string(key) + ":", value);
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

} // namespace

void show_run(const store::database& db, std::int64_t run_id, std::ostream& out, output_format format) {
  const auto detail = db.run(run_id);
  if (!detail)
    throw usage_error(fmt::format("no run {} in {}; `bankbench list runs` lists the runs there", run_id, db.path()));
  const auto rows = db.configurations(run_id);
  predictions p;
  p.model = names_backend(detail->gpu.backend, backend::model);
  for (const auto& c : rows) {
    p.shown = p.shown || (!p.model && c.metric_means.count(k_predicted_ld_wf) > 0);
    for (const auto& k : metrics::access_kinds()) {
      const std::string kind = k.name;
      if (kind == "lds" || kind == "sts" || kind == "tma") continue; // lds/sts are the ld/st columns less LDSM/STSM
      const auto req = mean_of(c, (kind + "_requests").c_str());
      if (req && *req > 0 && std::find(p.kinds.begin(), p.kinds.end(), kind) == p.kinds.end()) p.kinds.push_back(kind);
    }
    p.flagged = p.flagged || mismatch(c);
  }
  text_table table = make_table(format, p);
  for (const auto& c : rows) add_row(table, c, format, p);
  if (format == output_format::csv) {
    table.write(out, format);
    return;
  }
  write_header(*detail, out, format);
  table.write(out, format);
  if (p.flagged)
    out << fmt::format("\n! measured ld wf/req differs from the bank model's prediction by more than max({:g}% of it, "
                       "{:g}); see docs/bank-model.md\n",
                       100 * model::k_allowance_relative, model::k_allowance_absolute);
  out << '\n' << summary(rows) << '\n';
}

} // namespace bb::query
