// database's writing half: GPUs, runs and, one transaction each, configurations.
#include <sqlite3.h>

#include <algorithm>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runner/common/error.hpp"
#include "runner/store/database.hpp"
#include "runner/store/sqlite.hpp"

namespace bb::store {

namespace {

using sqlite::null_if_empty;

std::optional<std::uint64_t> null_if_zero_bytes(std::uint64_t value) {
  return value == 0 ? std::nullopt : std::optional<std::uint64_t>(value);
}

std::optional<int> null_if_zero(int value) {
  if (value == 0) return std::nullopt;
  return value;
}

void insert_launches(sqlite3* db, const std::string& path, std::int64_t id, const configuration_record& c,
                     const std::string& operation) {
  sqlite::statement insert(db, path,
                           "INSERT INTO metrics (configuration_id, name, launch_index, unit, value, derived) "
                           "VALUES (?, ?, ?, ?, ?, ?)",
                           operation);
  for (const launch_record& launch : c.launches)
    for (const metric_value& m : launch.values) insert.run(id, m.name, launch.launch_index, m.unit, m.value, m.derived);
}

void insert_timing(sqlite3* db, const std::string& path, std::int64_t id, const timing_record& t,
                   const std::string& operation) {
  sqlite::statement summary(
      db, path,
      "INSERT INTO timings (configuration_id, samples, median_ns, min_ns, max_ns, mean_ns, stddev_ns, spread, "
      "sm_clock_mhz, sm_clock_max_mhz, throttled, throttle_reasons, bandwidth_gbps, throttled_samples, "
      "launches_per_sample, placements) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      operation);
  summary.run(id, t.samples_ns.size(), t.median_ns, t.min_ns, t.max_ns, t.mean_ns, t.stddev_ns, t.spread,
              null_if_zero(t.sm_clock_mhz), null_if_zero(t.sm_clock_max_mhz), t.throttled,
              null_if_empty(t.throttle_reasons), t.bandwidth_gbps, t.throttled_samples, t.launches_per_sample,
              std::max(1, t.placements));
  sqlite::statement sample(
      db, path,
      "INSERT INTO timing_samples (configuration_id, sample_index, gpu_time_ns, sm_clock_mhz, throttled, placement) "
      "VALUES (?, ?, ?, ?, ?, ?)",
      operation);
  for (std::size_t i = 0; i < t.samples_ns.size(); ++i) {
    const int clock = i < t.sample_sm_clock_mhz.size() ? t.sample_sm_clock_mhz[i] : 0;
    const bool throttled = i < t.sample_throttled.size() && t.sample_throttled[i] != 0;
    const int placement = i < t.sample_placement.size() ? t.sample_placement[i] : 0;
    sample.run(id, i, t.samples_ns[i], null_if_zero(clock), throttled, placement);
  }
}

void insert_expectations(sqlite3* db, const std::string& path, std::int64_t id, const configuration_record& c,
                         const std::string& operation) {
  sqlite::statement insert(
      db, path, "INSERT INTO expectations (configuration_id, metric, text, observed, passed) VALUES (?, ?, ?, ?, ?)",
      operation);
  for (const expectation_record& e : c.expectations) insert.run(id, e.metric, e.text, e.observed, e.passed);
}

} // namespace

std::int64_t database::upsert_gpu(const gpu_record& g) {
  const std::string operation = fmt::format("recording GPU {} ({})", g.name, g.uuid);
  sqlite::statement st(
      m_db.get(), *m_path,
      "INSERT INTO gpus (uuid, backend, name, chip, cc_major, cc_minor, sm_count, memory_bytes, l2_bytes, "
      "sm_clock_max_mhz, mem_clock_max_mhz, driver_version, cuda_driver_version, cuda_runtime_version, "
      "first_seen_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
      "ON CONFLICT (uuid, backend) DO UPDATE SET name = excluded.name, chip = excluded.chip, "
      "cc_major = excluded.cc_major, cc_minor = excluded.cc_minor, sm_count = excluded.sm_count, "
      "memory_bytes = excluded.memory_bytes, l2_bytes = excluded.l2_bytes, "
      "sm_clock_max_mhz = excluded.sm_clock_max_mhz, mem_clock_max_mhz = excluded.mem_clock_max_mhz, "
      "driver_version = excluded.driver_version, cuda_driver_version = excluded.cuda_driver_version, "
      "cuda_runtime_version = excluded.cuda_runtime_version "
      "RETURNING id",
      operation);
  st.bind(g.uuid, g.backend, g.name, null_if_empty(g.chip), g.cc_major, g.cc_minor, g.sm_count, g.memory_bytes,
          g.l2_bytes, g.sm_clock_max_mhz, g.mem_clock_max_mhz, null_if_empty(g.driver_version), g.cuda_driver_version,
          g.cuda_runtime_version, utc_now_iso8601());
  if (!st.step()) throw store_error(fmt::format("{}: {}: no row returned", *m_path, operation));
  const std::int64_t id = st.int64(0);
  while (st.step()) {
  }
  return id;
}

std::int64_t database::begin_session(const session_record& s) {
  const char* operation = "recording the start of the session";
  sqlite::statement st(
      m_db.get(), *m_path,
      "INSERT INTO sessions (started_at, status, host, pid, command_line) VALUES (?, 'running', ?, ?, ?)", operation);
  st.run(s.started_at.empty() ? utc_now_iso8601() : s.started_at, null_if_empty(s.host),
         s.pid == 0 ? std::nullopt : std::optional<std::int64_t>(s.pid), s.command_line);
  return sqlite3_last_insert_rowid(m_db.get());
}

void database::finish_session(std::int64_t session_id, run_status status, int exit_code) {
  const std::string operation = fmt::format("recording the end of session {} ({})", session_id, name_of(status));
  sqlite::statement st(m_db.get(), *m_path,
                       "UPDATE sessions SET status = ?, finished_at = ?, exit_code = ? WHERE id = ?", operation);
  st.run(std::string(name_of(status)), utc_now_iso8601(), exit_code, session_id);
}

std::int64_t database::begin_run(std::int64_t gpu_id, const run_record& r) {
  const std::string operation = fmt::format("recording the start of run {}", r.experiment_name);
  check_file_identity();
  sqlite::statement st(
      m_db.get(), *m_path,
      "INSERT INTO runs (gpu_id, started_at, status, host, git_commit, git_dirty, bankbench_version, "
      "experiment_name, experiment_path, experiment_text, experiment_sha256, command_line, metric_set, "
      "metrics_json, seed, warmup, samples, session_id, pid, sources_sha256, fingerprint, slurm_job_id, "
      "slurm_array_task_id, cuda_visible_devices, shard, kind, working_directory) "
      "VALUES (?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      operation);
  const auto id_or_null = [](std::int64_t v) { return v == 0 ? std::nullopt : std::optional<std::int64_t>(v); };
  st.run(gpu_id, r.started_at.empty() ? utc_now_iso8601() : r.started_at, null_if_empty(r.host),
         null_if_empty(r.git_commit), r.git_dirty, r.bankbench_version, r.experiment_name, r.experiment_path,
         r.experiment_text, r.experiment_sha256, r.command_line, null_if_empty(r.metric_set),
         nlohmann::json(r.metrics).dump(), r.seed, r.warmup, r.samples, id_or_null(r.session_id), id_or_null(r.pid),
         null_if_empty(r.sources_sha256), null_if_empty(r.fingerprint), null_if_empty(r.slurm_job_id),
         null_if_empty(r.slurm_array_task_id), null_if_empty(r.cuda_visible_devices), null_if_empty(r.shard), r.kind,
         null_if_empty(r.working_directory));
  return sqlite3_last_insert_rowid(m_db.get());
}

std::int64_t database::add_configuration(std::int64_t run_id, const configuration_record& c) {
  const std::string operation = fmt::format("recording configuration {} ({} {}) of run {}", c.seq, c.variant,
                                            c.params_json, run_id);
  sqlite3* db = m_db.get();
  sqlite::transaction tx(db, *m_path, operation);
  sqlite::statement st(
      db, *m_path,
      "INSERT INTO configurations (run_id, seq, variant, family, params_json, status, reason, bytes_moved, "
      "smem_access_bytes, verified_elements, mismatched_elements, started_at, finished_at, host_rss_peak_bytes, "
      "device_used_bytes, pool_reserved_bytes, compile_key, compile_ms, compiler, compile_options) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      operation);
  st.run(run_id, c.seq, c.variant, c.family, c.params_json, std::string(name_of(c.status)), null_if_empty(c.reason),
         c.bytes_moved, c.smem_access_bytes, c.verified_elements, c.mismatched_elements, null_if_empty(c.started_at),
         null_if_empty(c.finished_at), null_if_zero_bytes(c.host_rss_peak_bytes),
         null_if_zero_bytes(c.device_used_bytes), null_if_zero_bytes(c.pool_reserved_bytes),
         null_if_empty(c.compile_key), c.compile_ms, null_if_empty(c.compiler), null_if_empty(c.compile_options));
  const std::int64_t id = sqlite3_last_insert_rowid(db);
  insert_launches(db, *m_path, id, c, operation);
  if (c.timing) insert_timing(db, *m_path, id, *c.timing, operation);
  insert_expectations(db, *m_path, id, c, operation);
  check_file_identity();
  tx.commit();
  return id;
}

database::write_batch::write_batch(database& db, std::string operation)
    : m_db(db), m_tx(std::make_unique<sqlite::transaction>(db.handle(), db.path(), operation)) {}

database::write_batch::~write_batch() = default; // rolled back unless committed

void database::write_batch::commit() {
  m_db.check_file_identity();
  m_tx->commit();
}

void database::finish_run(std::int64_t run_id, run_status status) {
  const std::string operation = fmt::format("recording the end of run {} ({})", run_id, name_of(status));
  check_file_identity();
  sqlite::statement st(m_db.get(), *m_path, "UPDATE runs SET status = ?, finished_at = ? WHERE id = ?", operation);
  st.run(std::string(name_of(status)), utc_now_iso8601(), run_id);
  if (sqlite3_changes(m_db.get()) != 1) throw store_error(fmt::format("{}: {}: no such run", *m_path, operation));
}

void database::finish_attach(std::int64_t run_id, run_status status, std::optional<int> program_exit,
                             const std::string& note) {
  const std::string operation = fmt::format("recording the end of run {} ({})", run_id, name_of(status));
  check_file_identity();
  sqlite::statement st(m_db.get(), *m_path,
                       "UPDATE runs SET status = ?, finished_at = ?, program_exit = ?, note = ? WHERE id = ?",
                       operation);
  st.run(std::string(name_of(status)), utc_now_iso8601(), program_exit, null_if_empty(note), run_id);
  if (sqlite3_changes(m_db.get()) != 1) throw store_error(fmt::format("{}: {}: no such run", *m_path, operation));
}

} // namespace bb::store
