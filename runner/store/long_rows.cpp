#include "runner/store/long_rows.hpp"

#include <sqlite3.h>

#include <memory>
#include <set>

#include <fmt/format.h>

#include "runner/store/results.hpp"
#include "runner/store/sqlite.hpp"

namespace bb::store {

namespace {

// One exported column: the SQL that gives it and the name it is exported under.
struct long_column {
  std::string sql, name;
};

std::string mean_of(const char* metric) {
  return fmt::format("(SELECT avg(value) FROM metrics m WHERE m.configuration_id = c.id AND m.name = '{}')", metric);
}

// Every table's columns, in their order; "arch" is made from backend, cc_major and cc_minor,
// which the query adds at its end.
std::vector<long_column> long_columns_of(long_table table) {
  std::vector<long_column> cols = {{"c.run_id", "run_id"},
                                   {"r.started_at", "started_at"},
                                   {"r.git_commit", "git_commit"},
                                   {"r.git_dirty", "git_dirty"},
                                   {"r.host", "host"},
                                   {"g.name", "gpu_name"},
                                   {"g.uuid", "gpu_uuid"},
                                   {"g.backend", "backend"},
                                   {"NULL", "arch"},
                                   {"r.experiment_name", "experiment"},
                                   {"c.seq", "seq"},
                                   {"c.variant", "variant"},
                                   {"c.family", "family"},
                                   {"c.params_json", "params_json"},
                                   {"c.status", "status"}};
  switch (table) {
  case long_table::metrics:
    cols.insert(cols.end(), {{"m.launch_index", "launch_index"},
                             {"m.name", "metric"},
                             {"m.unit", "unit"},
                             {"m.value", "value"},
                             {"m.derived", "derived"}});
    break;
  case long_table::samples:
    cols.insert(cols.end(), {{"s.sample_index", "sample_index"}, {"s.gpu_time_ns", "gpu_time_ns"}});
    break;
  case long_table::configurations:
    cols.insert(cols.end(), {{"c.reason", "reason"},
                             {"c.bytes_moved", "bytes_moved"},
                             {"c.smem_access_bytes", "smem_access_bytes"}});
    for (const char* m : {"load_requests", "load_wavefronts_per_request", "load_conflicts_per_request",
                          "store_requests", "store_wavefronts_per_request", "store_conflicts_per_request"})
      cols.push_back({mean_of(m), m});
    for (const char* t : {"samples", "median_ns", "min_ns", "max_ns", "mean_ns", "stddev_ns", "spread",
                          "bandwidth_gbps", "sm_clock_mhz", "throttled"})
      cols.push_back({std::string("t.") + t, t});
    cols.push_back({"(SELECT count(*) FROM expectations e WHERE e.configuration_id = c.id AND e.passed = 0)",
                    "expectations_failed"});
    break;
  case long_table::lines:
    cols.insert(cols.end(), {{"lc.status", "lines_status"},
                             {"lc.note", "lines_note"},
                             {"lc.kernel", "kernel"},
                             {"l.function", "function"},
                             {"l.pc", "pc"},
                             {"l.file", "file"},
                             {"l.line", "line"},
                             {"l.opcode", "opcode"},
                             {"l.kind", "kind"},
                             {"l.executions", "executions"},
                             {"l.threads", "threads"},
                             {"l.wavefronts", "wavefronts"},
                             {"l.ideal", "ideal"},
                             {"max(l.wavefronts - l.ideal, 0)", "excess"}});
    break;
  }
  return cols;
}

constexpr const char* k_from = "FROM configurations c JOIN runs r ON r.id = c.run_id JOIN gpus g ON g.id = r.gpu_id";

std::string sql_of(long_table table) {
  std::string select;
  for (const auto& c : long_columns_of(table)) select += (select.empty() ? "" : ", ") + c.sql + " AS " + c.name;
  select += ", g.cc_major AS cc_major, g.cc_minor AS cc_minor"; // for arch
  switch (table) {
  case long_table::metrics:
    return fmt::format("SELECT {} {} JOIN metrics m ON m.configuration_id = c.id WHERE c.run_id = ? "
                       "ORDER BY c.seq, m.launch_index, m.name",
                       select, k_from);
  case long_table::samples:
    return fmt::format("SELECT {} {} JOIN timing_samples s ON s.configuration_id = c.id WHERE c.run_id = ? "
                       "ORDER BY c.seq, s.sample_index",
                       select, k_from);
  case long_table::lines:
    return fmt::format("SELECT {} {} JOIN line_collections lc ON lc.configuration_id = c.id LEFT JOIN line_counters l "
                       "ON l.configuration_id = c.id WHERE c.run_id = ? ORDER BY c.seq, l.function, l.pc",
                       select, k_from);
  case long_table::configurations: break;
  }
  return fmt::format("SELECT {} {} LEFT JOIN timings t ON t.configuration_id = c.id WHERE c.run_id = ? ORDER BY c.seq",
                     select, k_from);
}

cell cell_at(const sqlite::statement& st, int i) {
  switch (st.type(i)) {
  case SQLITE_INTEGER: return st.int64(i);
  case SQLITE_FLOAT: return st.real(i);
  case SQLITE_NULL: return std::monostate{};
  default: return st.text(i);
  }
}

} // namespace

std::vector<std::string> long_columns(long_table table) {
  std::vector<std::string> names;
  for (const auto& c : long_columns_of(table)) names.push_back(c.name);
  return names;
}

void scan_long_rows(const database& db, long_table table, const std::vector<std::int64_t>& run_ids,
                    const std::function<void(const std::vector<cell>&)>& row) {
  // A database opened read-only as an older schema has no line tables: no lines to give.
  if (table == long_table::lines && db.user_version() < 8) return;
  const std::string sql = sql_of(table);
  sqlite::statement st(db.read_handle(), db.path(), sql.c_str(), "exporting");
  const std::size_t n = long_columns_of(table).size();
  const int arch = st.column_index("arch"), backend = st.column_index("backend"),
            cc_major = st.column_index("cc_major"), cc_minor = st.column_index("cc_minor");
  std::vector<cell> cells(n);
  for (const std::int64_t run_id : run_ids) {
    st.bind(run_id);
    while (st.step()) {
      for (std::size_t i = 0; i < n; ++i) cells[i] = cell_at(st, static_cast<int>(i));
      cells[static_cast<std::size_t>(arch)] = architecture(st.text(backend), static_cast<int>(st.int64(cc_major)),
                                                           static_cast<int>(st.int64(cc_minor)));
      row(cells);
    }
  }
}

std::vector<std::string> distinct_params(const database& db, const std::vector<std::int64_t>& run_ids) {
  sqlite::statement st(db.read_handle(), db.path(), "SELECT DISTINCT params_json FROM configurations WHERE run_id = ?",
                       "exporting");
  std::set<std::string> seen;
  for (const std::int64_t id : run_ids) {
    st.bind(id);
    while (st.step()) seen.insert(st.text(0));
  }
  return {seen.begin(), seen.end()};
}

} // namespace bb::store
