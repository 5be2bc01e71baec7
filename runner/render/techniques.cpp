#include "runner/render/techniques.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runner/common/backend.hpp"
#include "runner/common/error.hpp"
#include "runner/common/metrics.hpp"
#include "runner/config/experiment.hpp"
#include "runner/query/cells.hpp"
#include "runner/query/table.hpp"

namespace bb::render {

using query::align;
using query::cell;
using query::column;
using query::compact_params;
using query::number_cell;
using query::output_format;
using query::short_variant;
using query::text_table;

namespace {

constexpr const char* k_reference_family = "reference";
constexpr const char* k_predicted_ld_wf = "predicted_load_wavefronts_per_request";

/// The fastest finished configuration of the reference family on one GPU.
struct reference_bandwidth {
  double gbps = 0;
  std::string variant, params;
  std::int64_t run_id = 0;
};

std::map<std::int64_t, reference_bandwidth> reference_bandwidths(const store::database& db) {
  std::map<std::int64_t, reference_bandwidth> best;
  for (const auto& r : db.runs())
    for (const auto& c : db.configurations(r.id)) {
      if (c.family != k_reference_family || c.status != config_status::ok || !c.timing ||
          !(c.timing->bandwidth_gbps > 0))
        continue;
      auto& b = best[r.gpu_id];
      if (c.timing->bandwidth_gbps > b.gbps)
        b = {c.timing->bandwidth_gbps, short_variant(c.variant), compact_params(c.params_json), r.id};
    }
  return best;
}

/// One `expect:` entry with what the configurations it covers measured.
struct check {
  std::string text, claim, scope;
  int applied = 0, met = 0;
  std::optional<double> low, high;   ///< range of the observed values
  std::vector<std::string> failures; ///< "naive n=4096: measured 30.1"
};

struct section {
  store::run_detail run;
  std::vector<store::configuration_row> rows;
  std::optional<config::experiment> experiment; ///< the stored text, re-parsed; empty when it no longer loads
  std::vector<check> checks;
  int met = 0, failed = 0, unfinished = 0;
  int unverified = 0; ///< measured, but the variant has no check of its output
  /// The bank model's run: its counters are predictions and nothing was timed.
  [[nodiscard]] bool predicted() const { return names_backend(run.gpu.backend, backend::model); }
};

std::string number(double v) { return fmt::format("{:.4g}", v); }

/// Counted and timed: finished, whether or not its output had a check.
bool measured(config_status status) { return status == config_status::ok || status == config_status::unverified; }

std::string cuda_version(int v) { return fmt::format("{}.{}", v / 1000, (v % 1000) / 10); }

std::string gpu_line(const store::gpu_record& g) {
  std::string text = g.name;
  std::vector<std::string> detail;
  if (!g.chip.empty()) detail.push_back(g.chip);
  if (g.cc_major > 0) detail.push_back(fmt::format("compute capability {}.{}", g.cc_major, g.cc_minor));
  if (g.sm_count > 0) detail.push_back(fmt::format("{} SMs", g.sm_count));
  if (!detail.empty()) text += " (" + fmt::format("{}", fmt::join(detail, ", ")) + ")";
  if (!g.driver_version.empty()) text += ", driver " + g.driver_version;
  if (g.cuda_driver_version > 0) text += ", CUDA " + cuda_version(g.cuda_driver_version);
  if (g.cuda_runtime_version > 0 && g.cuda_runtime_version != g.cuda_driver_version)
    text += " (runtime " + cuda_version(g.cuda_runtime_version) + ")";
  return text;
}

std::string scope_of(const config::expectation& e) {
  std::string scope = e.variants.empty() ? "every variant" : fmt::format("{}", fmt::join(e.variants, ", "));
  if (!e.where.empty()) scope += " where " + compact_params(e.where.dump());
  return scope;
}

std::string configuration_name(const store::configuration_row& c) {
  const std::string params = compact_params(c.params_json);
  return short_variant(c.variant) + (params.empty() ? "" : " " + params);
}

/// Each expectation of the experiment with the configurations that were held to it. Stored
/// expectations carry their canonical text; the parsed file adds the scope and the claim.
void gather_checks(section& s) {
  const std::string observed = s.predicted() ? "predicted " : "measured ";
  auto record = [&observed](check& k, const store::configuration_row& c, const store::expectation_record& e) {
    ++k.applied;
    if (e.observed) {
      k.low = std::min(k.low.value_or(*e.observed), *e.observed);
      k.high = std::max(k.high.value_or(*e.observed), *e.observed);
    }
    if (e.passed)
      ++k.met;
    else
      k.failures.push_back(configuration_name(c) + ": " +
                           (e.observed ? observed + number(*e.observed) : "not " + observed));
  };
  if (s.experiment) {
    for (const auto& e : s.experiment->expectations) {
      check k{e.text, e.claim, scope_of(e)};
      for (const auto& c : s.rows) {
        const auto params = nlohmann::json::parse(c.params_json, nullptr, false);
        if (!e.applies_to(short_variant(c.variant), params)) continue;
        for (const auto& rec : c.expectations)
          if (rec.text == e.text) {
            record(k, c, rec);
            break;
          }
      }
      s.checks.push_back(std::move(k));
    }
  } else {
    for (const auto& c : s.rows)
      for (const auto& rec : c.expectations) {
        auto it = std::find_if(s.checks.begin(), s.checks.end(), [&](const check& k) { return k.text == rec.text; });
        if (it == s.checks.end()) it = s.checks.insert(s.checks.end(), check{rec.text, "", ""});
        record(*it, c, rec);
      }
  }
  for (const auto& c : s.rows) {
    if (!measured(c.status)) ++s.unfinished;
    if (c.status == config_status::unverified) ++s.unverified;
    for (const auto& e : c.expectations) ++(e.passed ? s.met : s.failed);
  }
}

std::string verdict(const section& s) {
  if (s.failed > 0) return s.predicted() ? "model disagrees" : "hardware disagrees";
  if (s.unfinished > 0) return "incomplete";
  if (s.met == 0) return "nothing checked";
  return "held";
}

std::optional<double> mean_of(const store::configuration_row& c, const char* metric) {
  const auto it = c.metric_means.find(metric);
  if (!measured(c.status) || it == c.metric_means.end()) return std::nullopt;
  return it->second;
}

void write_table(const section& s, const reference_bandwidth* ref, std::ostream& out) {
  // A model run's own numbers are the predictions: no second column equal to the first, no times.
  const bool timed = !s.predicted();
  const bool model = timed && std::any_of(s.rows.begin(), s.rows.end(),
                                          [](const auto& c) { return c.metric_means.count(k_predicted_ld_wf) > 0; });
  std::vector<column> columns = {{"variant", align::left}, {"params", align::left}, {"ld wf/req", align::right}};
  if (model) columns.push_back({"model ld wf/req", align::right});
  for (const char* h : {"ld confl/req", "st wf/req", "st confl/req"}) columns.push_back({h, align::right});
  // Kinds beyond LDS/STS that the section executed (ldmatrix, atomics, ...): their own columns.
  std::vector<std::string> kinds;
  for (const auto& k : metrics::access_kinds()) {
    const std::string kind = k.name;
    if (kind == "lds" || kind == "sts" || kind == "tma") continue;
    const bool used = std::any_of(s.rows.begin(), s.rows.end(), [&](const auto& c) {
      const auto req = mean_of(c, (kind + "_requests").c_str());
      return req && *req > 0;
    });
    if (!used) continue;
    kinds.push_back(kind);
    columns.push_back({kind + " wf/req", align::right});
    if (model) columns.push_back({"model " + kind + " wf/req", align::right});
    columns.push_back({kind + " confl/req", align::right});
  }
  if (timed)
    for (const char* h : {"median µs", "GB/s", "% copy"}) columns.push_back({h, align::right});
  columns.push_back({"checks", align::left});
  text_table table(std::move(columns));
  constexpr auto md = output_format::markdown;
  for (const auto& c : s.rows) {
    const std::string params = compact_params(c.params_json);
    std::vector<cell> cells = {short_variant(c.variant), params.empty() ? "-" : params,
                               number_cell(mean_of(c, "load_wavefronts_per_request"), 2, md)};
    if (model) cells.push_back(number_cell(mean_of(c, k_predicted_ld_wf), 2, md));
    cells.push_back(number_cell(mean_of(c, "load_conflicts_per_request"), 2, md));
    cells.push_back(number_cell(mean_of(c, "store_wavefronts_per_request"), 2, md));
    cells.push_back(number_cell(mean_of(c, "store_conflicts_per_request"), 2, md));
    for (const auto& kind : kinds) {
      cells.push_back(number_cell(mean_of(c, (kind + "_wavefronts_per_request").c_str()), 2, md));
      if (model)
        cells.push_back(number_cell(mean_of(c, ("predicted_" + kind + "_wavefronts_per_request").c_str()), 2, md));
      cells.push_back(number_cell(mean_of(c, (kind + "_conflicts_per_request").c_str()), 2, md));
    }
    std::optional<double> us, gbps, share;
    if (measured(c.status) && c.timing) {
      us = c.timing->median_ns / 1000;
      if (c.timing->bandwidth_gbps > 0) gbps = c.timing->bandwidth_gbps;
      if (gbps && ref != nullptr) share = 100 * *gbps / ref->gbps;
    }
    if (timed) {
      cells.push_back(number_cell(us, 2, md));
      cells.push_back(number_cell(gbps, 1, md));
      cells.push_back(number_cell(share, 1, md));
    }
    int failed = 0;
    for (const auto& e : c.expectations) failed += e.passed ? 0 : 1;
    if (c.status != config_status::ok)
      cells.push_back(name_of(c.status));
    else if (c.expectations.empty())
      cells.push_back("-");
    else
      cells.push_back(failed == 0 ? "pass" : fmt::format("{} failed", failed));
    table.add_row(std::move(cells));
  }
  table.write(out, md);
}

void write_checks(const section& s, std::ostream& out) {
  if (s.checks.empty()) return;
  out << "\nExpectations:\n\n";
  for (const auto& k : s.checks) {
    const bool held = k.applied > 0 && k.met == k.applied;
    std::string line = held ? "- held: " : k.applied == 0 ? "- not checked: " : "- **disagrees**: ";
    line += "`" + k.text + "`";
    if (!k.scope.empty()) line += " for " + k.scope;
    line += fmt::format(": {} of {} configuration{} met", k.met, k.applied, k.applied == 1 ? "" : "s");
    const std::string observed = s.predicted() ? ", predicted " : ", measured ";
    if (k.low)
      line += *k.low == *k.high ? observed + number(*k.low) : observed + number(*k.low) + " to " + number(*k.high);
    if (!k.failures.empty()) line += "; failed: " + fmt::format("{}", fmt::join(k.failures, "; "));
    line += ".";
    if (!k.claim.empty()) line += " Claim: " + k.claim + (k.claim.back() == '.' ? "" : ".");
    out << line << '\n';
  }
}

void write_section(const section& s, const reference_bandwidth* ref, bool name_gpu, std::ostream& out) {
  const auto& run = s.run.run;
  out << fmt::format("\n## {}\n\n", run.experiment_name);
  const std::string claim = s.experiment ? s.experiment->claim : "";
  if (!claim.empty())
    out << "> " << claim << "\n\n";
  else
    out << "_The experiment file states no claim._\n\n";
  if (s.experiment && !s.experiment->description.empty()) out << s.experiment->description << "\n\n";
  std::string commit = run.git_commit.empty() ? "unknown commit" : "commit " + run.git_commit.substr(0, 12);
  if (run.git_dirty) commit += " (dirty)";
  out << fmt::format("Run {} of `{}`, started {}, {}, status {}", s.run.id, run.experiment_path, run.started_at, commit,
                     name_of(s.run.status));
  if (name_gpu) out << ", on " << s.run.gpu.name;
  out << ".";
  if (!s.experiment) out << " The stored experiment no longer loads in this build, so its claims are not shown.";
  out << "\n\n";
  write_table(s, ref, out);
  write_checks(s, out);
  out << '\n';
  const int total = s.met + s.failed;
  if (s.failed > 0 && s.predicted())
    out << fmt::format("**The bank model disagrees** with {} of {} expectation checks; each is listed above with "
                       "what it predicted.\n",
                       s.failed, total);
  else if (s.failed > 0)
    out << fmt::format("**The hardware disagrees** with {} of {} expectation checks; each is listed above with "
                       "what was measured.\n",
                       s.failed, total);
  else if (total > 0 && s.predicted())
    out << fmt::format("**Predicted to hold**: the bank model's predictions meet all {} expectation checks on {} "
                       "configurations; measure on a GPU to confirm.\n",
                       total, s.rows.size() - s.unfinished - s.unverified);
  else if (total > 0)
    out << fmt::format("**The claim held**: all {} expectation checks on {} configurations were met.\n", total,
                       s.rows.size() - s.unfinished - s.unverified);
  else
    out << "No expectation was checked.\n";
  if (s.unverified > 0) {
    std::vector<std::string> list;
    for (const auto& c : s.rows)
      if (c.status == config_status::unverified) list.push_back(configuration_name(c));
    out << fmt::format("\n**Not verified**: {} of {} configurations were measured but have no check of their output: "
                       "{}.\n",
                       s.unverified, s.rows.size(), fmt::join(list, "; "));
  }
  if (s.unfinished > 0) {
    std::vector<std::string> list;
    int not_modelled = 0;
    for (const auto& c : s.rows)
      if (!measured(c.status)) {
        list.push_back(configuration_name(c) + " (" + name_of(c.status) + (c.reason.empty() ? "" : ": " + c.reason) +
                       ")");
        not_modelled += c.status == config_status::not_modelled ? 1 : 0;
      }
    if (not_modelled == s.unfinished)
      out << fmt::format(
          "\n**Not modelled**: the bank model cannot predict {} of {} configurations (no access plan, or "
          "kernel code it cannot follow): {}.\n",
          s.unfinished, s.rows.size(), fmt::join(list, "; "));
    else
      out << fmt::format("\n**Not {}**: {} of {} configurations did not finish: {}.\n",
                         s.predicted() ? "predicted" : "measured", s.unfinished, s.rows.size(), fmt::join(list, "; "));
  }
}

} // namespace

std::vector<std::int64_t> technique_runs(const store::database& db, const std::vector<std::int64_t>& run_ids) {
  if (!run_ids.empty()) {
    for (const auto id : run_ids)
      if (!db.run(id))
        throw store_error(fmt::format("no run {} in {}; `bankbench list runs` lists the runs there", id, db.path()));
    return run_ids;
  }
  const auto runs = db.runs(); // newest first
  if (runs.empty()) throw usage_error(db.path() + " holds no runs yet; run `bankbench run` first");
  std::map<std::int64_t, std::string> backend;
  for (const auto& g : db.gpus()) backend[g.id] = g.gpu.backend;
  std::int64_t gpu = runs.front().gpu_id;
  for (const auto& r : runs)
    if (!names_backend(backend[r.gpu_id], bb::backend::model)) {
      gpu = r.gpu_id;
      break;
    }
  std::map<std::string, const store::run_row*> chosen; // by experiment name
  for (const auto& r : runs) {
    if (r.gpu_id != gpu) continue;
    auto& c = chosen[r.run.experiment_name]; // runs are newest first: the first seen is the latest
    if (c == nullptr || (c->status != run_status::completed && r.status == run_status::completed)) c = &r;
  }
  std::vector<const store::run_row*> picked;
  for (const auto& [name, r] : chosen) picked.push_back(r);
  std::sort(picked.begin(), picked.end(), [](const auto* a, const auto* b) {
    return std::tie(a->run.experiment_path, a->run.experiment_name, a->id) <
           std::tie(b->run.experiment_path, b->run.experiment_name, b->id);
  });
  std::vector<std::int64_t> ids;
  for (const auto* r : picked) ids.push_back(r->id);
  return ids;
}

void write_techniques(const store::database& db, const std::vector<std::int64_t>& run_ids, const registry& reg,
                      std::ostream& out) {
  const auto ids = technique_runs(db, run_ids);
  std::vector<section> sections;
  std::set<std::string> dates;
  std::map<std::int64_t, store::gpu_record> gpus; // by id, in id order
  for (const auto id : ids) {
    section s;
    s.run = *db.run(id);
    s.rows = db.configurations(id);
    try {
      s.experiment = config::load_experiment_text(s.run.run.experiment_text, s.run.run.experiment_path, reg);
    } catch (const std::exception&) { // renamed variants, a newer format: the numbers still stand
    }
    gather_checks(s);
    dates.insert(s.run.run.started_at.substr(0, 10));
    gpus.emplace(s.run.gpu_id, s.run.gpu);
    sections.push_back(std::move(s));
  }
  const auto references = reference_bandwidths(db);
  auto reference_for = [&](std::int64_t gpu) -> const reference_bandwidth* {
    const auto it = references.find(gpu);
    return it == references.end() ? nullptr : &it->second;
  };

  const bool predicted = std::all_of(gpus.begin(), gpus.end(),
                                     [](const auto& g) { return names_backend(g.second.backend, backend::model); });
  if (predicted)
    out << "# Shared-memory bank-conflict techniques, predicted by the bank model\n\n"
           "Generated by `bankbench techniques` from the results database: do not edit by hand, run it again.\n"
           "Each section is one experiment (`experiments/<family>/<name>.yaml`): the claim it tests, what the\n"
           "bank model predicts for every configuration from its access plan (no GPU ran, nothing was timed),\n"
           "and whether the predictions meet the expectations written in the file.\n\n";
  else
    out << "# Shared-memory bank-conflict techniques, measured\n\n"
           "Generated by `bankbench techniques` from the results database: do not edit by hand, run it again.\n"
           "Each section is one experiment (`experiments/<family>/<name>.yaml`): the claim it tests, what the\n"
           "counters and timers measured for every configuration, and whether the expectations written in\n"
           "the file held.\n\n";
  for (const auto& [id, g] : gpus) out << "- GPU: " << gpu_line(g) << '\n';
  const std::string date = dates.size() == 1 ? *dates.begin() : *dates.begin() + " to " + *dates.rbegin();
  auto sorted_ids = ids;
  std::sort(sorted_ids.begin(), sorted_ids.end());
  std::vector<std::string> run_list;
  for (const auto id : sorted_ids) run_list.push_back(std::to_string(id));
  out << fmt::format("- {}: {} (run{} {})\n", predicted ? "Predicted" : "Measured", date, ids.size() == 1 ? "" : "s",
                     fmt::join(run_list, ", "));
  for (const auto& [id, g] : gpus) {
    if (names_backend(g.backend, backend::model)) continue; // the model times nothing
    const auto* ref = reference_for(id);
    const std::string on = gpus.size() > 1 ? " on " + g.name : "";
    if (ref == nullptr)
      out << "- Reference bandwidth" << on
          << ": none measured (run `experiments/reference`), so there is no \"% copy\" column to fill.\n";
    else
      out << fmt::format("- Reference bandwidth{}: {:.1f} GB/s, the best `reference` configuration ({} {}, run {}); "
                         "\"% copy\" is a configuration's bandwidth as a share of it.\n",
                         on, ref->gbps, ref->variant, ref->params, ref->run_id);
  }
  out << "\n\"ld\" and \"st\" are shared-memory loads and stores; \"wf/req\" is wavefronts per request (1 for a\n"
         "conflict-free warp access of 4 bytes per lane), \"confl/req\" bank conflicts per request;\n"
         "\"ld\" counts ldmatrix instructions as requests, as Nsight Compute does. Sections whose kernels\n"
         "use other kinds add their own columns: \"ldsm\" ldmatrix, \"stsm\" stmatrix, \"atom\" shared\n"
         "atomics, \"ldgsts\" cp.async, \"gmma\" wgmma operand reads (docs/bank-model.md, access kinds)"
      << (predicted
              ? ".\n\n"
              : "; times are\nmedians of event-timed launches; \"GB/s\" counts the bytes each kernel must move.\n\n");

  text_table summary({{"technique", align::left},
                      {"verdict", align::left},
                      {predicted ? "configurations predicted" : "configurations measured", align::right},
                      {"expectation checks met", align::right}});
  for (const auto& s : sections)
    summary.add_row({fmt::format("[{0}](#{0})", s.run.run.experiment_name), verdict(s),
                     std::to_string(s.rows.size() - s.unfinished) + " of " + std::to_string(s.rows.size()),
                     std::to_string(s.met) + " of " + std::to_string(s.met + s.failed)});
  summary.write(out, output_format::markdown);
  for (const auto& s : sections) write_section(s, reference_for(s.run.gpu_id), gpus.size() > 1, out);
}

} // namespace bb::render
