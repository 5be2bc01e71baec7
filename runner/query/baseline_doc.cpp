#include "runner/query/baseline_doc.hpp"

#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "runner/common/error.hpp"
#include "runner/query/metric_info.hpp"
#include "runner/query/side.hpp"

namespace bb::query {

namespace {

using nlohmann::json;

json run_json(const store::run_info& r) {
  return {{"experiment", r.experiment_name},
          {"started_at", r.started_at},
          {"git_commit", r.git_commit},
          {"git_dirty", r.git_dirty},
          {"host", r.host},
          {"gpu", r.gpu_name},
          {"gpu_uuid", r.gpu_uuid},
          {"backend", r.backend},
          {"arch", r.arch}};
}

// The per-request ratios regress judges, and the requests they are per: raw counts, CUPTI names
// and predictions are left out to keep the file small.
bool kept(const std::string& metric) {
  return describe_metric(metric).kind == metric_kind::ratio || metric.ends_with("_requests");
}

json configuration_json(const store::result_row& row, std::size_t run_index,
                        const std::map<std::string, double>& noise) {
  json metrics = json::object();
  for (const auto& [name, m] : row.metrics) {
    if (!kept(name)) continue;
    const auto it = noise.find(noise_key(row, name));
    metrics[name] = {{"mean", m.mean},
                     {"min", m.min},
                     {"max", m.max},
                     {"launches", m.launches},
                     {"noise", it == noise.end() ? 0.0 : it->second}};
  }
  json c = {{"run", run_index},
            {"experiment", row.experiment},
            {"arch", row.arch},
            {"variant", row.variant},
            {"params", json::parse(canonical_params(row.params_json), nullptr, false)},
            {"status", name_of(row.status)},
            {"metrics", metrics}};
  if (row.median_ns) c["median_ns"] = *row.median_ns;
  if (!row.samples_ns.empty()) c["samples_ns"] = row.samples_ns;
  return c;
}

[[noreturn]] void bad(const std::string& origin, const std::string& what) {
  throw usage_error(fmt::format("{}: not a bankbench baseline: {}", origin, what));
}

void need(const json& object, const char* key, json::value_t type, const std::string& origin,
          const std::string& where) {
  const auto it = object.find(key);
  const bool number = type == json::value_t::number_float;
  if (it == object.end() || (number ? !it->is_number() : it->type() != type))
    bad(origin, fmt::format("{}\"{}\" is missing or has the wrong type", where, key));
}

} // namespace

json make_baseline_document(const std::string& name, const side& from, const std::map<std::string, double>& noise,
                            const std::string& source, const std::string& created_at) {
  json doc = {{"bankbench_baseline", k_baseline_format},
              {"name", name},
              {"created_at", created_at},
              {"source", source},
              {"runs", json::array()},
              {"configurations", json::array()}};
  std::map<std::int64_t, std::size_t> run_index;
  for (const auto& r : from.runs) {
    run_index[r.id] = doc["runs"].size();
    doc["runs"].push_back(run_json(r));
  }
  for (const auto& row : from.rows)
    doc["configurations"].push_back(configuration_json(row, run_index[row.run_id], noise));
  return doc;
}

void check_baseline_document(const json& doc, const std::string& origin) {
  if (!doc.is_object()) bad(origin, "the file does not hold a JSON object");
  const auto version = doc.find("bankbench_baseline");
  if (version == doc.end() || !version->is_number_integer()) bad(origin, "no \"bankbench_baseline\" format number");
  const auto format = version->get<std::int64_t>();
  if (format < 1) bad(origin, fmt::format("\"bankbench_baseline\" is {}; formats start at 1", format));
  if (format > k_baseline_format)
    throw usage_error(fmt::format("{}: written by a newer bankbench (baseline format {}, this build knows {})", origin,
                                  format, k_baseline_format));
  need(doc, "name", json::value_t::string, origin, "");
  need(doc, "runs", json::value_t::array, origin, "");
  need(doc, "configurations", json::value_t::array, origin, "");
  std::size_t i = 0;
  for (const auto& c : doc["configurations"]) {
    const std::string where = fmt::format("configurations[{}]: ", i++);
    if (!c.is_object()) bad(origin, where + "not an object");
    for (const char* key : {"experiment", "arch", "variant", "status"})
      need(c, key, json::value_t::string, origin, where);
    if (!config_status_named(c["status"].get<std::string>()))
      bad(origin, where + fmt::format("\"status\" '{}' is not a configuration status", c["status"].get<std::string>()));
    need(c, "params", json::value_t::object, origin, where);
    need(c, "metrics", json::value_t::object, origin, where);
    for (const auto& [name, m] : c["metrics"].items())
      for (const char* key : {"mean", "min", "max"})
        need(m, key, json::value_t::number_float, origin, where + "metrics." + name + ": ");
  }
  // One configuration once: two entries of it with different values leave no way to say which holds.
  std::map<std::string, std::size_t> first;
  i = 0;
  for (const auto& c : doc["configurations"]) {
    const std::string key = fmt::format("{} {} {} {}", c["experiment"].get<std::string>(), c["arch"].get<std::string>(),
                                        c["variant"].get<std::string>(), canonical_params(c["params"].dump()));
    const auto [it, fresh] = first.emplace(key, i);
    if (!fresh && doc["configurations"][it->second] != c)
      bad(origin, fmt::format("configurations[{}] and configurations[{}] are the same configuration ({}) with "
                              "different values; keep one of them",
                              it->second, i, key));
    ++i;
  }
}

side side_of_baseline(const json& doc) {
  side s;
  s.is_baseline = true;
  s.label = "baseline " + doc["name"].get<std::string>();
  for (const auto& r : doc["runs"]) {
    store::run_info info;
    info.experiment_name = r.value("experiment", "");
    info.started_at = r.value("started_at", "");
    info.git_commit = r.value("git_commit", "");
    info.git_dirty = r.value("git_dirty", false);
    info.host = r.value("host", "");
    info.gpu_name = r.value("gpu", "");
    info.gpu_uuid = r.value("gpu_uuid", "");
    info.backend = r.value("backend", "");
    info.arch = r.value("arch", "");
    s.runs.push_back(std::move(info));
  }
  for (const auto& c : doc["configurations"]) {
    store::result_row row;
    row.run_id = c.value("run", 0);
    row.experiment = c["experiment"];
    row.arch = c["arch"];
    row.variant = c["variant"];
    row.params_json = c["params"].dump();
    row.status = *config_status_named(c["status"].get<std::string>()); // checked by check_baseline_document
    for (const auto& [name, m] : c["metrics"].items()) {
      row.metrics[name] = {m["mean"].get<double>(), m["min"].get<double>(), m["max"].get<double>(),
                           m.value("launches", 1)};
      if (const double noise = m.value("noise", 0.0); noise > 0) s.stored_noise[noise_key(row, name)] = noise;
    }
    if (c.contains("median_ns") && c["median_ns"].is_number()) row.median_ns = c["median_ns"].get<double>();
    if (c.contains("samples_ns") && c["samples_ns"].is_array())
      for (const auto& v : c["samples_ns"])
        if (v.is_number()) row.samples_ns.push_back(v.get<double>());
    s.rows.push_back(std::move(row));
  }
  std::set<std::string> commits;
  for (const auto& r : s.runs) commits.insert(r.git_commit.empty() ? "-" : r.git_commit.substr(0, 12));
  s.description = fmt::format("{}: {} configurations saved {} from {}, commit {}", s.label, s.rows.size(),
                              doc.value("created_at", "?"), doc.value("source", "?"), fmt::join(commits, ", "));
  return s;
}

store::baseline_entry baseline_entry_of(const json& doc, const std::string& source) {
  std::set<std::string> experiments, archs;
  for (const auto& c : doc["configurations"]) {
    experiments.insert(c["experiment"].get<std::string>());
    archs.insert(c["arch"].get<std::string>());
  }
  return {doc["name"],
          doc.value("created_at", ""),
          source,
          fmt::format("{}", fmt::join(experiments, ", ")),
          fmt::format("{}", fmt::join(archs, ", ")),
          doc.dump()};
}

} // namespace bb::query
