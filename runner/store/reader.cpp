// database's reading half: what `bankbench runs`, `gpus` and `show` print.
#include <sqlite3.h>

#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "store/database.hpp"
#include "store/sqlite.hpp"

namespace bb::store {

namespace {

// Reads the gpus columns in the order of k_gpu_columns, starting at `first`.
constexpr const char* k_gpu_columns =
    "g.uuid, g.name, g.chip, g.cc_major, g.cc_minor, g.sm_count, g.memory_bytes, g.l2_bytes, "
    "g.sm_clock_max_mhz, g.mem_clock_max_mhz, g.driver_version, g.cuda_driver_version, "
    "g.cuda_runtime_version, g.backend";

gpu_record read_gpu(const sqlite::statement& st, int first) {
  gpu_record g;
  int i = first;
  g.uuid = st.text(i++);
  g.name = st.text(i++);
  g.chip = st.text(i++);
  g.cc_major = st.int32(i++);
  g.cc_minor = st.int32(i++);
  g.sm_count = st.int32(i++);
  g.memory_bytes = static_cast<std::uint64_t>(st.int64(i++));
  g.l2_bytes = static_cast<std::uint64_t>(st.int64(i++));
  g.sm_clock_max_mhz = st.int32(i++);
  g.mem_clock_max_mhz = st.int32(i++);
  g.driver_version = st.text(i++);
  g.cuda_driver_version = st.int32(i++);
  g.cuda_runtime_version = st.int32(i++);
  g.backend = st.text(i++);
  return g;
}

} // namespace

std::vector<run_row> database::runs() const {
  sqlite::statement st(
      m_db.get(), *m_path,
      "SELECT r.id, r.gpu_id, r.started_at, r.finished_at, r.status, r.experiment_name, r.experiment_path, "
      "g.name, r.git_commit, r.git_dirty, "
      "(SELECT count(*) FROM configurations c WHERE c.run_id = r.id), "
      "(SELECT count(*) FROM configurations c WHERE c.run_id = r.id AND c.status NOT IN ('ok', 'skipped', 'not_modelled', 'unverified')), "
      "(SELECT count(*) FROM expectations e JOIN configurations c ON c.id = e.configuration_id "
      " WHERE c.run_id = r.id AND e.passed = 0), "
      "r.session_id, r.fingerprint, r.host, r.pid "
      "FROM runs r JOIN gpus g ON g.id = r.gpu_id ORDER BY r.id DESC",
      "listing runs");
  std::vector<run_row> rows;
  while (st.step()) {
    run_row r;
    r.id = st.int64(0);
    r.gpu_id = st.int64(1);
    r.started_at = st.text(2);
    r.finished_at = st.text(3);
    r.status = st.text(4);
    r.experiment_name = st.text(5);
    r.experiment_path = st.text(6);
    r.gpu_name = st.text(7);
    r.git_commit = st.text(8);
    r.git_dirty = st.int64(9) != 0;
    r.configurations = st.int32(10);
    r.failed_configurations = st.int32(11);
    r.host = st.text(13);
    r.pid = st.is_null(14) ? 0 : st.int64(14);
    r.failed_expectations = st.int32(12);
    r.session_id = st.int64(13);
    r.fingerprint = st.text(14);
    r.host = st.text(15);
    r.pid = st.int64(16);
    rows.push_back(std::move(r));
  }
  return rows;
}

std::optional<std::int64_t> database::latest_run_id() const {
  sqlite::statement st(m_db.get(), *m_path, "SELECT max(id) FROM runs", "finding the latest run");
  if (!st.step() || st.is_null(0)) return std::nullopt;
  return st.int64(0);
}

std::optional<run_detail> database::run(std::int64_t run_id) const {
  const std::string sql = fmt::format(
      "SELECT r.id, r.finished_at, r.status, r.started_at, r.host, r.git_commit, r.git_dirty, "
      "r.bankbench_version, r.experiment_name, r.experiment_path, r.experiment_text, r.experiment_sha256, "
      "r.command_line, r.metric_set, r.metrics_json, r.seed, r.warmup, r.samples, r.gpu_id, {} "
      "FROM runs r JOIN gpus g ON g.id = r.gpu_id WHERE r.id = ?",
      k_gpu_columns);
  sqlite::statement st(m_db.get(), *m_path, sql.c_str(), fmt::format("reading run {}", run_id));
  st.bind(run_id);
  if (!st.step()) return std::nullopt;
  run_detail d;
  d.id = st.int64(0);
  d.finished_at = st.text(1);
  d.status = st.text(2);
  run_record& r = d.run;
  r.started_at = st.text(3);
  r.host = st.text(4);
  r.git_commit = st.text(5);
  r.git_dirty = st.int64(6) != 0;
  r.bankbench_version = st.text(7);
  r.experiment_name = st.text(8);
  r.experiment_path = st.text(9);
  r.experiment_text = st.text(10);
  r.experiment_sha256 = st.text(11);
  r.command_line = st.text(12);
  r.metric_set = st.text(13);
  // The column's CHECK guarantees valid JSON; a list of anything but strings is not ours to read.
  const auto metrics = nlohmann::json::parse(st.text(14), nullptr, false);
  if (metrics.is_array())
    for (const auto& m : metrics)
      if (m.is_string()) r.metrics.push_back(m.get<std::string>());
  r.seed = static_cast<std::uint64_t>(st.int64(15));
  r.warmup = st.int32(16);
  r.samples = st.int32(17);
  d.gpu_id = st.int64(18);
  d.gpu = read_gpu(st, 19);
  sqlite::statement v6(m_db.get(), *m_path,
                       "SELECT session_id, pid, sources_sha256, fingerprint, slurm_job_id, slurm_array_task_id, "
                       "cuda_visible_devices, shard FROM runs WHERE id = ?",
                       fmt::format("reading run {}", run_id));
  v6.bind(run_id);
  if (v6.step()) {
    r.session_id = v6.int64(0);
    r.pid = v6.int64(1);
    r.sources_sha256 = v6.text(2);
    r.fingerprint = v6.text(3);
    r.slurm_job_id = v6.text(4);
    r.slurm_array_task_id = v6.text(5);
    r.cuda_visible_devices = v6.text(6);
    r.shard = v6.text(7);
  }
  return d;
}

config_status status_read(const std::string& text, const std::string& path) {
  if (const auto s = config_status_named(text)) return *s;
  throw store_error(fmt::format("{}: a configuration's status '{}' is none bankbench writes", path, text));
}

std::vector<configuration_row> database::configurations(std::int64_t run_id) const {
  const std::string operation = fmt::format("reading the configurations of run {}", run_id);
  sqlite3* db = m_db.get();
  std::vector<configuration_row> rows;
  std::unordered_map<std::int64_t, std::size_t> index; // configuration id -> position in rows

  sqlite::statement st(
      db, *m_path,
      "SELECT c.id, c.seq, c.variant, c.family, c.params_json, c.status, c.reason, c.bytes_moved, "
      "c.smem_access_bytes, c.verified_elements, c.mismatched_elements, t.configuration_id, "
      "t.median_ns, t.min_ns, t.max_ns, t.mean_ns, t.stddev_ns, t.spread, t.sm_clock_mhz, t.sm_clock_max_mhz, "
      "t.throttled, t.throttle_reasons, t.bandwidth_gbps "
      "FROM configurations c LEFT JOIN timings t ON t.configuration_id = c.id WHERE c.run_id = ? ORDER BY c.seq",
      operation);
  st.bind(run_id);
  while (st.step()) {
    configuration_row c;
    c.id = st.int64(0);
    c.seq = st.int32(1);
    c.variant = st.text(2);
    c.family = st.text(3);
    c.params_json = st.text(4);
    c.status = status_read(st.text(5), *m_path);
    c.reason = st.text(6);
    c.bytes_moved = static_cast<std::uint64_t>(st.int64(7));
    c.smem_access_bytes = st.int32(8);
    c.verified_elements = static_cast<std::uint64_t>(st.int64(9));
    c.mismatched_elements = static_cast<std::uint64_t>(st.int64(10));
    if (!st.is_null(11)) {
      timing_record t;
      t.median_ns = st.real(12);
      t.min_ns = st.real(13);
      t.max_ns = st.real(14);
      t.mean_ns = st.real(15);
      t.stddev_ns = st.real(16);
      t.spread = st.real(17);
      t.sm_clock_mhz = st.int32(18);
      t.sm_clock_max_mhz = st.int32(19);
      t.throttled = st.int64(20) != 0;
      t.throttle_reasons = st.text(21);
      t.bandwidth_gbps = st.real(22);
      c.timing = std::move(t);
    }
    index.emplace(c.id, rows.size());
    rows.push_back(std::move(c));
  }

  sqlite::statement means(db, *m_path,
                          "SELECT m.configuration_id, m.name, avg(m.value) FROM metrics m "
                          "JOIN configurations c ON c.id = m.configuration_id WHERE c.run_id = ? "
                          "GROUP BY m.configuration_id, m.name",
                          operation);
  means.bind(run_id);
  while (means.step()) rows[index.at(means.int64(0))].metric_means[means.text(1)] = means.real(2);

  sqlite::statement expectations(db, *m_path,
                                 "SELECT e.configuration_id, e.metric, e.text, e.observed, e.passed "
                                 "FROM expectations e JOIN configurations c ON c.id = e.configuration_id "
                                 "WHERE c.run_id = ? ORDER BY e.id",
                                 operation);
  expectations.bind(run_id);
  while (expectations.step())
    rows[index.at(expectations.int64(0))].expectations.push_back(
        {expectations.text(1), expectations.text(2), expectations.optional_real(3), expectations.int64(4) != 0});
  return rows;
}

std::vector<gpu_row> database::gpus() const {
  const std::string sql = fmt::format(
      "SELECT g.id, g.first_seen_at, (SELECT count(*) FROM runs r WHERE r.gpu_id = g.id), {} "
      "FROM gpus g ORDER BY g.id",
      k_gpu_columns);
  sqlite::statement st(m_db.get(), *m_path, sql.c_str(), "listing GPUs");
  std::vector<gpu_row> rows;
  while (st.step()) rows.push_back({st.int64(0), read_gpu(st, 3), st.text(1), st.int32(2)});
  return rows;
}

} // namespace bb::store
