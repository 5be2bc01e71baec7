// Reading runs and their configurations for compare, regress, history and report.
#include "store/results.hpp"

#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/backend.hpp"
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

std::vector<run_info> run_infos(const database& db) {
  sqlite::statement st(db.read_handle(), db.path(),
                       "SELECT r.id, r.started_at, r.status, r.host, r.git_commit, r.git_dirty, r.experiment_name, "
                       "r.experiment_sha256, r.gpu_id, g.name, g.uuid, g.backend, g.cc_major, g.cc_minor, "
                       "r.session_id, r.fingerprint, r.sources_sha256, r.pid, r.slurm_job_id, r.slurm_array_task_id, "
                       "r.cuda_visible_devices, r.shard "
                       "FROM runs r JOIN gpus g ON g.id = r.gpu_id ORDER BY r.id",
                       "listing runs");
  std::vector<run_info> runs;
  while (st.step()) {
    run_info r;
    r.id = st.int64(0);
    r.started_at = st.text(1);
    r.status = st.text(2);
    r.host = st.text(3);
    r.git_commit = st.text(4);
    r.git_dirty = st.int64(5) != 0;
    r.experiment_name = st.text(6);
    r.experiment_sha256 = st.text(7);
    r.gpu_id = st.int64(8);
    r.gpu_name = st.text(9);
    r.gpu_uuid = st.text(10);
    r.backend = st.text(11);
    r.arch = architecture(r.backend, st.int32(12), st.int32(13));
    r.session_id = st.int64(14);
    r.fingerprint = st.text(15);
    r.sources_sha256 = st.text(16);
    r.pid = st.int64(17);
    r.slurm_job_id = st.text(18);
    r.slurm_array_task_id = st.text(19);
    r.cuda_visible_devices = st.text(20);
    r.shard = st.text(21);
    runs.push_back(std::move(r));
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
