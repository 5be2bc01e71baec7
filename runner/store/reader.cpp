// database's reading half: the runs, GPUs and configurations that `bankbench list runs`,
// `list gpus` and `show` print.
#include <sqlite3.h>

#include <unordered_map>

#include <fmt/format.h>

#include "runner/common/error.hpp"
#include "runner/store/database.hpp"
#include "runner/store/read_model.hpp"
#include "runner/store/sqlite.hpp"

namespace bb::store {

namespace {

using sqlite::statement;

// What `bankbench list runs` counts besides the run itself.
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

// A configuration's timing summary as `bankbench show` prints it (its samples are not read).
constexpr sqlite::field<timing_record> k_timing[] = {
    {"t.median_ns", "median_ns", [](const statement& st, int i, timing_record& t) { t.median_ns = st.real(i); }},
    {"t.min_ns", "min_ns", [](const statement& st, int i, timing_record& t) { t.min_ns = st.real(i); }},
    {"t.max_ns", "max_ns", [](const statement& st, int i, timing_record& t) { t.max_ns = st.real(i); }},
    {"t.mean_ns", "mean_ns", [](const statement& st, int i, timing_record& t) { t.mean_ns = st.real(i); }},
    {"t.stddev_ns", "stddev_ns", [](const statement& st, int i, timing_record& t) { t.stddev_ns = st.real(i); }},
    {"t.spread", "spread", [](const statement& st, int i, timing_record& t) { t.spread = st.real(i); }},
    {"t.sm_clock_mhz", "sm_clock_mhz",
     [](const statement& st, int i, timing_record& t) { t.sm_clock_mhz = st.int32(i); }},
    {"t.sm_clock_max_mhz", "sm_clock_max_mhz",
     [](const statement& st, int i, timing_record& t) { t.sm_clock_max_mhz = st.int32(i); }},
    {"t.throttled", "throttled", [](const statement& st, int i, timing_record& t) { t.throttled = st.int64(i) != 0; }},
    {"t.throttle_reasons", "throttle_reasons",
     [](const statement& st, int i, timing_record& t) { t.throttle_reasons = st.text(i); }},
    {"t.bandwidth_gbps", "bandwidth_gbps",
     [](const statement& st, int i, timing_record& t) { t.bandwidth_gbps = st.real(i); }},
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

run_status run_status_read(const std::string& text, const std::string& path) {
  if (const auto s = run_status_named(text)) return *s;
  throw store_error(fmt::format("{}: a run's status '{}' is none bankbench writes", path, text));
}

std::vector<configuration_row> database::configurations(std::int64_t run_id) const {
  const std::string operation = fmt::format("reading the configurations of run {}", run_id);
  sqlite3* db = m_db.get();
  std::vector<configuration_row> rows;
  std::unordered_map<std::int64_t, std::size_t> index; // configuration id -> position in rows

  const std::string sql = fmt::format("SELECT {}, t.configuration_id AS timed, {} FROM configurations c "
                                      "LEFT JOIN timings t ON t.configuration_id = c.id WHERE c.run_id = ? "
                                      "ORDER BY c.seq",
                                      configuration_reader::columns(), sqlite::select_list<timing_record>(k_timing, 1));
  statement st(db, *m_path, sql.c_str(), operation);
  const configuration_reader configuration(st);
  const sqlite::row_reader<timing_record> timing(st, k_timing);
  const int timed = st.column_index("timed");
  st.bind(run_id);
  while (st.step()) {
    configuration_row c;
    configuration.read(c);
    if (!st.is_null(timed)) timing.read(c.timing.emplace());
    index.emplace(c.id, rows.size());
    rows.push_back(std::move(c));
  }

  statement means(db, *m_path,
                  "SELECT m.configuration_id AS configuration_id, m.name AS name, avg(m.value) AS mean FROM metrics m "
                  "JOIN configurations c ON c.id = m.configuration_id WHERE c.run_id = ? "
                  "GROUP BY m.configuration_id, m.name",
                  operation);
  const int of = means.column_index("configuration_id"), name = means.column_index("name"),
            mean = means.column_index("mean");
  means.bind(run_id);
  while (means.step()) rows[index.at(means.int64(of))].metric_means[means.text(name)] = means.real(mean);

  statement expectations(db, *m_path,
                         "SELECT e.configuration_id AS configuration_id, e.metric AS metric, e.text AS text, "
                         "e.observed AS observed, e.passed AS passed "
                         "FROM expectations e JOIN configurations c ON c.id = e.configuration_id "
                         "WHERE c.run_id = ? ORDER BY e.id",
                         operation);
  const int e_of = expectations.column_index("configuration_id"), metric = expectations.column_index("metric"),
            text = expectations.column_index("text"), observed = expectations.column_index("observed"),
            passed = expectations.column_index("passed");
  expectations.bind(run_id);
  while (expectations.step())
    rows[index.at(expectations.int64(e_of))].expectations.push_back({expectations.text(metric), expectations.text(text),
                                                                     expectations.optional_real(observed),
                                                                     expectations.int64(passed) != 0});
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
