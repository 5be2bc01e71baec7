// Reading runs and their configurations for compare, regress, history and report.
#include "store/results.hpp"

#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/backend.hpp"
#include "store/read_model.hpp"
#include "store/samples.hpp"
#include "store/sqlite.hpp"

namespace bb::store {

namespace {

std::string describe_expectation(const std::string& text, const std::optional<double>& observed) {
  return observed ? fmt::format("{} (observed {:.6g})", text, *observed) : text + " (not measured)";
}

} // namespace

std::string architecture(const std::string& backend, int cc_major, int cc_minor) {
  if (names_backend(backend, bb::backend::cupti)) return fmt::format("sm_{}{}", cc_major, cc_minor);
  if (cc_major == 0) return backend;
  return fmt::format("{}:sm_{}{}", backend, cc_major, cc_minor);
}

run_info info_of(const run_detail& d) {
  const run_record& r = d.run;
  return {.id = d.id,
          .started_at = r.started_at,
          .status = d.status,
          .host = r.host,
          .git_commit = r.git_commit,
          .experiment_name = r.experiment_name,
          .experiment_sha256 = r.experiment_sha256,
          .git_dirty = r.git_dirty,
          .gpu_id = d.gpu_id,
          .gpu_name = d.gpu.name,
          .gpu_uuid = d.gpu.uuid,
          .backend = d.gpu.backend,
          .arch = architecture(d.gpu.backend, d.gpu.cc_major, d.gpu.cc_minor),
          .session_id = r.session_id,
          .fingerprint = r.fingerprint,
          .sources_sha256 = r.sources_sha256,
          .pid = r.pid,
          .slurm_job_id = r.slurm_job_id,
          .slurm_array_task_id = r.slurm_array_task_id,
          .cuda_visible_devices = r.cuda_visible_devices,
          .shard = r.shard};
}

std::vector<run_info> run_infos(const database& db) {
  const std::string sql = fmt::format("SELECT {} FROM runs r JOIN gpus g ON g.id = r.gpu_id ORDER BY r.id",
                                      run_reader::columns(db.user_version()));
  sqlite::statement st(db.read_handle(), db.path(), sql.c_str(), "listing runs");
  const run_reader reader(st);
  std::vector<run_info> runs;
  while (st.step()) {
    run_detail d;
    reader.read(d);
    runs.push_back(info_of(d));
  }
  return runs;
}

std::vector<result_row> read_results(const database& db, const std::vector<std::int64_t>& run_ids,
                                     const result_query& query) {
  sqlite3* h = db.read_handle();
  const std::string& path = db.path();
  const char* operation = "reading results";
  sqlite::statement configs(
      h, path,
      "SELECT c.id, c.run_id, c.seq, r.experiment_name, g.backend, g.cc_major, g.cc_minor, c.variant, "
      "c.params_json, c.status, t.median_ns, t.bandwidth_gbps "
      "FROM configurations c JOIN runs r ON r.id = c.run_id JOIN gpus g ON g.id = r.gpu_id "
      "LEFT JOIN timings t ON t.configuration_id = c.id WHERE c.run_id = ? ORDER BY c.seq",
      operation);
  // The wanted names travel as one bound JSON list.
  const bool filter = !query.metrics.empty();
  const std::string names = filter ? " AND m.name IN (SELECT value FROM json_each(?))" : "";
  const std::string names_json = nlohmann::json(query.metrics).dump();
  const std::string metrics_sql =
      fmt::format("SELECT m.configuration_id, m.name, avg(m.value), min(m.value), max(m.value), count(*) "
                  "FROM configurations c JOIN metrics m ON m.configuration_id = c.id WHERE c.run_id = ?{} "
                  "GROUP BY m.configuration_id, m.name",
                  names);
  sqlite::statement metrics(h, path, metrics_sql.c_str(), operation);
  sqlite::statement samples(h, path,
                            "SELECT s.configuration_id, s.gpu_time_ns, s.placement FROM configurations c "
                            "JOIN timing_samples s ON s.configuration_id = c.id WHERE c.run_id = ? "
                            "ORDER BY s.configuration_id, s.sample_index",
                            operation);
  sqlite::statement failed(h, path,
                           "SELECT e.configuration_id, e.metric, e.text, e.observed FROM configurations c "
                           "JOIN expectations e ON e.configuration_id = c.id WHERE c.run_id = ? AND e.passed = 0 "
                           "ORDER BY e.id",
                           operation);

  std::vector<result_row> rows;
  for (const std::int64_t run_id : run_ids) {
    std::unordered_map<std::int64_t, std::size_t> index; // configuration id -> position in rows
    configs.bind(run_id);
    while (configs.step()) {
      result_row r;
      r.run_id = configs.int64(1);
      r.seq = configs.int32(2);
      r.experiment = configs.text(3);
      r.arch = architecture(configs.text(4), configs.int32(5), configs.int32(6));
      r.variant = configs.text(7);
      r.params_json = configs.text(8);
      r.status = status_read(configs.text(9), db.path());
      r.median_ns = configs.optional_real(10);
      r.bandwidth_gbps = configs.optional_real(11);
      index.emplace(configs.int64(0), rows.size());
      rows.push_back(std::move(r));
    }
    if (filter)
      metrics.bind(run_id, names_json);
    else
      metrics.bind(run_id);
    while (metrics.step())
      rows[index.at(metrics.int64(0))].metrics[metrics.text(1)] = {metrics.real(2), metrics.real(3), metrics.real(4),
                                                                   metrics.int32(5)};
    if (query.samples) {
      samples.bind(run_id);
      while (samples.step()) {
        result_row& row = rows[index.at(samples.int64(0))];
        row.samples_ns.push_back(samples.real(1));
        row.sample_placement.push_back(samples.int32(2));
      }
    }
    failed.bind(run_id);
    while (failed.step()) {
      rows[index.at(failed.int64(0))].failed_expectations.push_back(
          {failed.text(1), describe_expectation(failed.text(2), failed.optional_real(3))});
    }
  }
  return rows;
}

double result_row::sample_median() const { return fastest_placement_median(samples_ns, sample_placement); }

} // namespace bb::store
