#include "store/long_rows.hpp"

#include <sqlite3.h>

#include <memory>
#include <set>

#include <fmt/format.h>

#include "store/results.hpp"
#include "store/sqlite.hpp"

namespace bb::store {

namespace {

constexpr int k_arch_column = 8; // computed from the backend and the compute capability

// The shared columns; g.cc_major and g.cc_minor stand where arch goes and are read as two.
constexpr const char* k_shared =
    "c.run_id, r.started_at, r.git_commit, r.git_dirty, r.host, g.name, g.uuid, g.backend, g.cc_major, g.cc_minor, "
    "r.experiment_name, c.seq, c.variant, c.family, c.params_json, c.status";

constexpr const char* k_from = "FROM configurations c JOIN runs r ON r.id = c.run_id JOIN gpus g ON g.id = r.gpu_id";

std::string sql_of(long_table table) {
  switch (table) {
  case long_table::metrics:
    return fmt::format("SELECT {}, m.launch_index, m.name, m.unit, m.value, m.derived {} "
                       "JOIN metrics m ON m.configuration_id = c.id WHERE c.run_id = ? "
                       "ORDER BY c.seq, m.launch_index, m.name",
                       k_shared, k_from);
  case long_table::samples:
    return fmt::format("SELECT {}, s.sample_index, s.gpu_time_ns {} "
                       "JOIN timing_samples s ON s.configuration_id = c.id WHERE c.run_id = ? "
                       "ORDER BY c.seq, s.sample_index",
                       k_shared, k_from);
  case long_table::configurations: break;
  }
  auto mean = [](const char* name) {
    return fmt::format("(SELECT avg(value) FROM metrics m WHERE m.configuration_id = c.id AND m.name = '{}')", name);
  };
  return fmt::format("SELECT {}, c.reason, c.bytes_moved, c.smem_access_bytes, {}, {}, {}, {}, {}, {}, t.samples, "
                     "t.median_ns, t.min_ns, t.max_ns, t.mean_ns, t.stddev_ns, t.spread, t.bandwidth_gbps, "
                     "t.sm_clock_mhz, t.throttled, "
                     "(SELECT count(*) FROM expectations e WHERE e.configuration_id = c.id AND e.passed = 0) "
                     "{} LEFT JOIN timings t ON t.configuration_id = c.id WHERE c.run_id = ? ORDER BY c.seq",
                     k_shared, mean("load_requests"), mean("load_wavefronts_per_request"),
                     mean("load_conflicts_per_request"), mean("store_requests"), mean("store_wavefronts_per_request"),
                     mean("store_conflicts_per_request"), k_from);
}

} // namespace

std::vector<std::string> long_columns(long_table table) {
  std::vector<std::string> names = {"run_id",   "started_at", "git_commit", "git_dirty",   "host",
                                    "gpu_name", "gpu_uuid",   "backend",    "arch",        "experiment",
                                    "seq",      "variant",    "family",     "params_json", "status"};
  switch (table) {
  case long_table::metrics: names.insert(names.end(), {"launch_index", "metric", "unit", "value", "derived"}); break;
  case long_table::samples: names.insert(names.end(), {"sample_index", "gpu_time_ns"}); break;
  case long_table::configurations:
    names.insert(names.end(), {"reason",
                               "bytes_moved",
                               "smem_access_bytes",
                               "load_requests",
                               "load_wavefronts_per_request",
                               "load_conflicts_per_request",
                               "store_requests",
                               "store_wavefronts_per_request",
                               "store_conflicts_per_request",
                               "samples",
                               "median_ns",
                               "min_ns",
                               "max_ns",
                               "mean_ns",
                               "stddev_ns",
                               "spread",
                               "bandwidth_gbps",
                               "sm_clock_mhz",
                               "throttled",
                               "expectations_failed"});
    break;
  }
  return names;
}

void scan_long_rows(const database& db, long_table table, const std::vector<std::int64_t>& run_ids,
                    const std::function<void(const std::vector<cell>&)>& row) {
  const std::string sql = sql_of(table);
  sqlite3* h = db.read_handle();
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) sqlite::fail(h, db.path(), "exporting");
  const std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> guard(st, sqlite3_finalize);
  const int columns = sqlite3_column_count(st);
  std::vector<cell> cells(static_cast<std::size_t>(columns - 1));
  for (const std::int64_t run_id : run_ids) {
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, run_id);
    int rc = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      for (int i = 0, out = 0; i < columns; ++i, ++out) {
        if (i == k_arch_column) { // backend is the column before; cc_major and cc_minor make one cell
          cells[static_cast<std::size_t>(out)] =
              architecture(std::get<std::string>(cells[static_cast<std::size_t>(out - 1)]), sqlite3_column_int(st, i),
                           sqlite3_column_int(st, i + 1));
          ++i;
          continue;
        }
        auto& c = cells[static_cast<std::size_t>(out)];
        switch (sqlite3_column_type(st, i)) {
        case SQLITE_INTEGER: c = static_cast<std::int64_t>(sqlite3_column_int64(st, i)); break;
        case SQLITE_FLOAT: c = sqlite3_column_double(st, i); break;
        case SQLITE_NULL: c = std::monostate{}; break;
        default:
          c = std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, i)),
                          static_cast<std::size_t>(sqlite3_column_bytes(st, i)));
        }
      }
      row(cells);
    }
    if (rc != SQLITE_DONE) sqlite::fail(h, db.path(), "exporting");
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
