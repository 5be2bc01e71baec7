// Reading runs and their configurations for compare, regress, history and report.
#include "runner/store/results.hpp"

#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runner/common/backend.hpp"
#include "runner/store/read_model.hpp"
#include "runner/store/samples.hpp"
#include "runner/store/sqlite.hpp"

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
          .host = r.host,
          .git_commit = r.git_commit,
          .experiment_name = r.experiment_name,
          .experiment_sha256 = r.experiment_sha256,
          .status = d.status,
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

std::vector<std::string> stored_metric_names(const database& db) {
  sqlite::statement st(db.read_handle(), db.path(), "SELECT DISTINCT name FROM metrics ORDER BY name",
                       "listing metric names");
  std::vector<std::string> names;
  while (st.step()) names.push_back(st.text(0));
  return names;
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
  const std::string configs_sql =
      fmt::format("SELECT {}, r.experiment_name AS experiment, g.backend AS backend, g.cc_major AS cc_major, "
                  "g.cc_minor AS cc_minor, t.median_ns AS median_ns, t.bandwidth_gbps AS bandwidth_gbps "
                  "FROM configurations c JOIN runs r ON r.id = c.run_id JOIN gpus g ON g.id = r.gpu_id "
                  "LEFT JOIN timings t ON t.configuration_id = c.id WHERE c.run_id = ? ORDER BY c.seq",
                  configuration_reader::columns());
  sqlite::statement configs(h, path, configs_sql.c_str(), operation);
  const configuration_reader configuration(configs);
  const int experiment = configs.column_index("experiment"), backend = configs.column_index("backend"),
            cc_major = configs.column_index("cc_major"), cc_minor = configs.column_index("cc_minor"),
            median_ns = configs.column_index("median_ns"), bandwidth_gbps = configs.column_index("bandwidth_gbps");
  // The wanted names travel as one bound JSON list.
  const bool filter = !query.metrics.empty();
  const std::string names = filter ? " AND m.name IN (SELECT value FROM json_each(?))" : "";
  const std::string names_json = nlohmann::json(query.metrics).dump();
  const std::string metrics_sql =
      fmt::format("SELECT m.configuration_id AS configuration_id, m.name AS name, avg(m.value) AS mean, "
                  "min(m.value) AS min, max(m.value) AS max, count(*) AS launches "
                  "FROM configurations c JOIN metrics m ON m.configuration_id = c.id WHERE c.run_id = ?{} "
                  "GROUP BY m.configuration_id, m.name",
                  names);
  sqlite::statement metrics(h, path, metrics_sql.c_str(), operation);
  const int m_of = metrics.column_index("configuration_id"), m_name = metrics.column_index("name"),
            m_mean = metrics.column_index("mean"), m_min = metrics.column_index("min"),
            m_max = metrics.column_index("max"), m_launches = metrics.column_index("launches");
  sqlite::statement samples(h, path,
                            "SELECT s.configuration_id AS configuration_id, s.gpu_time_ns AS gpu_time_ns, "
                            "s.placement AS placement FROM configurations c "
                            "JOIN timing_samples s ON s.configuration_id = c.id WHERE c.run_id = ? "
                            "ORDER BY s.configuration_id, s.sample_index",
                            operation);
  const int s_of = samples.column_index("configuration_id"), s_time = samples.column_index("gpu_time_ns"),
            s_placement = samples.column_index("placement");
  sqlite::statement failed(h, path,
                           "SELECT e.configuration_id AS configuration_id, e.metric AS metric, e.text AS text, "
                           "e.observed AS observed, e.passed AS passed FROM configurations c "
                           "JOIN expectations e ON e.configuration_id = c.id WHERE c.run_id = ? "
                           "ORDER BY e.id",
                           operation);
  const int f_of = failed.column_index("configuration_id"), f_metric = failed.column_index("metric"),
            f_text = failed.column_index("text"), f_observed = failed.column_index("observed"),
            f_passed = failed.column_index("passed");

  std::vector<result_row> rows;
  for (const std::int64_t run_id : run_ids) {
    std::unordered_map<std::int64_t, std::size_t> index; // configuration id -> position in rows
    configs.bind(run_id);
    while (configs.step()) {
      result_row r;
      configuration.read(r);
      r.experiment = configs.text(experiment);
      r.arch = architecture(configs.text(backend), configs.int32(cc_major), configs.int32(cc_minor));
      r.median_ns = configs.optional_real(median_ns);
      r.bandwidth_gbps = configs.optional_real(bandwidth_gbps);
      index.emplace(r.id, rows.size());
      rows.push_back(std::move(r));
    }
    if (filter)
      metrics.bind(run_id, names_json);
    else
      metrics.bind(run_id);
    while (metrics.step())
      rows[index.at(metrics.int64(m_of))].metrics[metrics.text(m_name)] = {metrics.real(m_mean), metrics.real(m_min),
                                                                           metrics.real(m_max),
                                                                           metrics.int32(m_launches)};
    if (query.samples) {
      samples.bind(run_id);
      while (samples.step()) {
        result_row& row = rows[index.at(samples.int64(s_of))];
        row.samples_ns.push_back(samples.real(s_time));
        row.sample_placement.push_back(samples.int32(s_placement));
      }
    }
    failed.bind(run_id);
    while (failed.step()) {
      result_row& row = rows[index.at(failed.int64(f_of))];
      ++row.checked_expectations;
      if (failed.int32(f_passed) == 0)
        row.failed_expectations.push_back(
            {failed.text(f_metric), describe_expectation(failed.text(f_text), failed.optional_real(f_observed))});
    }
  }
  return rows;
}

double result_row::sample_median() const { return fastest_placement_median(samples_ns, sample_placement); }

} // namespace bb::store
