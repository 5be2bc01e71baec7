// database's reading half: what `bankbench runs`, `gpus` and `show` print.
#include <sqlite3.h>

#include <unordered_map>

#include <fmt/format.h>

#include "common/error.hpp"
#include "store/database.hpp"
#include "store/read_model.hpp"
#include "store/sqlite.hpp"

namespace bb::store {

namespace {

using sqlite::statement;

// What `bankbench runs` counts besides the run itself.
constexpr sqlite::field<run_row> k_run_counts[] = {
    {"(SELECT count(*) FROM configurations c WHERE c.run_id = r.id)", "configurations",
     [](const statement& st, int i, run_row& r) { r.configurations = st.int32(i); }},
    {"(SELECT count(*) FROM configurations c WHERE c.run_id = r.id "
     "AND c.status NOT IN ('ok', 'skipped', 'not_modelled', 'unverified'))",
     "failed_configurations", [](const statement& st, int i, run_row& r) { r.failed_configurations = st.int32(i); }},
    {"(SELECT count(*) FROM expectations e JOIN configurations c ON c.id = e.configuration_id "
     "WHERE c.run_id = r.id AND e.passed = 0)",
     "failed_expectations", [](const statement& st, int i, run_row& r) { r.failed_expectations = st.int32(i); }},
};

} // namespace

std::vector<run_row> database::runs() const {
  const int version = user_version();
  const std::string sql = fmt::format("SELECT {}, {} FROM runs r JOIN gpus g ON g.id = r.gpu_id ORDER BY r.id DESC",
                                      run_reader::columns(version),
                                      sqlite::select_list<run_row>(k_run_counts, version));
  statement st(m_db.get(), *m_path, sql.c_str(), "listing runs");
  const run_reader run(st);
  const sqlite::row_reader<run_row> counts(st, k_run_counts);
  std::vector<run_row> rows;
  while (st.step()) {
    run_row r;
    run.read(r);
    counts.read(r);
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
  const std::string sql = fmt::format("SELECT {} FROM runs r JOIN gpus g ON g.id = r.gpu_id WHERE r.id = ?",
                                      run_reader::columns(user_version()));
  statement st(m_db.get(), *m_path, sql.c_str(), fmt::format("reading run {}", run_id));
  const run_reader reader(st);
  st.bind(run_id);
  if (!st.step()) return std::nullopt;
  run_detail d;
  reader.read(d);
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
      "SELECT g.id AS id, g.first_seen_at AS first_seen_at, (SELECT count(*) FROM runs r WHERE r.gpu_id = g.id) AS runs, {} "
      "FROM gpus g ORDER BY g.id",
      gpu_reader::columns());
  statement st(m_db.get(), *m_path, sql.c_str(), "listing GPUs");
  const gpu_reader gpu(st);
  const int id = st.column_index("id"), first_seen_at = st.column_index("first_seen_at"),
            runs = st.column_index("runs");
  std::vector<gpu_row> rows;
  while (st.step()) rows.push_back({st.int64(id), gpu.read(), st.text(first_seen_at), st.int32(runs)});
  return rows;
}

} // namespace bb::store
