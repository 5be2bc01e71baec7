// database merging: GPUs by (uuid, backend), runs by (GPU, started_at, experiment_sha256, host,
// Slurm task, shard), configurations of a run by seq, each with its lines; rows are copied column by column, whatever
// columns both share.
#include "runner/store/merge.hpp"

#include <sqlite3.h>

#include <map>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "runner/store/merge_rows.hpp"
#include "runner/store/read_only_uri.hpp"
#include "runner/store/sqlite.hpp"

namespace bb::store {

namespace {

constexpr char k_sep = '\x1f'; // cannot occur in a uuid, a timestamp or a hash
constexpr const char* k_attached = "bb_merge_source";

struct dest_run {
  std::int64_t id = 0;
  std::string status;
};

bool has_table(sqlite3* db, const std::string& path, const char* table) {
  sqlite::statement st(db, path, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", "reading the schema");
  st.bind(std::string(table));
  return st.step();
}

bool has_column(sqlite3* db, const std::string& path, const char* table, const char* column) {
  for (const auto& c : columns_of(db, path, table))
    if (c == column) return true;
  return false;
}

constexpr int k_run_key_columns = 8;

std::string run_key(const sqlite::statement& st, int first) {
  std::string key;
  for (int i = first; i < first + k_run_key_columns; ++i) key += st.text(i) + k_sep;
  return key;
}

// Key columns, in run_key's order: GPU uuid, backend, started_at, experiment_sha256, host and,
// from schema version 6 on, Slurm job, array task and shard. These tell apart the runs of one file
// that the tasks of a sweep started in one millisecond on one host and one GPU, as the model
// backend's tasks can; a database from before version 6 reads '' for them, as its runs copied
// into a newer one do. The pid is not part of it: `run --resume` changes it.
std::string run_identity_sql(sqlite3* db, const std::string& path) {
  const char* task = has_column(db, path, "runs", "shard")
                         ? "ifnull(r.slurm_job_id, ''), ifnull(r.slurm_array_task_id, ''), ifnull(r.shard, '')"
                         : "'', '', ''";
  return fmt::format("SELECT r.id, r.status, r.finished_at, r.gpu_id, g.uuid, g.backend, r.started_at, "
                     "r.experiment_sha256, ifnull(r.host, ''), {} FROM runs r JOIN gpus g ON g.id = r.gpu_id "
                     "ORDER BY r.id",
                     task);
}

class merger {
public:
  merger(database& into, const database& source, bool bulk)
      : m_into(into),
        m_source(source),
        m_dst(into.handle()),
        m_src(source.read_handle()),
        m_bulk(bulk),
        m_gpus(m_src, m_dst, source.path(), into.path(), "gpus", "id", nullptr),
        m_runs(m_src, m_dst, source.path(), into.path(), "runs", "id", "gpu_id"),
        m_configurations(m_src, m_dst, source.path(), into.path(), "configurations", "id", "run_id"),
        m_metrics(m_src, m_dst, source.path(), into.path(), "metrics", "configuration_id", "configuration_id"),
        m_timings(m_src, m_dst, source.path(), into.path(), "timings", "configuration_id", "configuration_id"),
        m_samples(m_src, m_dst, source.path(), into.path(), "timing_samples", "configuration_id", "configuration_id"),
        m_expectations(m_src, m_dst, source.path(), into.path(), "expectations", "configuration_id",
                       "configuration_id") {
    // Schema 8's per-line counters, where the source has them (an older source has none).
    if (has_table(m_src, source.path(), "line_collections")) {
      m_line_collections.emplace(m_src, m_dst, source.path(), into.path(), "line_collections", "configuration_id",
                                 "configuration_id");
      m_line_counters.emplace(m_src, m_dst, source.path(), into.path(), "line_counters", "configuration_id",
                              "configuration_id");
    }
  }

  merge_counts run() {
    map_gpus();
    load_dest_runs();
    sqlite::statement runs(m_src, m_source.path(), run_identity_sql(m_src, m_source.path()).c_str(), "reading runs");
    while (runs.step()) merge_run(runs);
    if (m_bulk) {
      // The measurements of every configuration copied above, a table at a time.
      m_counts.metric_rows_added = copy_mapped_rows(m_dst, m_into.path(), k_attached, "metrics");
      copy_mapped_rows(m_dst, m_into.path(), k_attached, "timings");
      m_counts.sample_rows_added = copy_mapped_rows(m_dst, m_into.path(), k_attached, "timing_samples");
      copy_mapped_rows(m_dst, m_into.path(), k_attached, "expectations");
      if (m_line_collections) {
        m_counts.line_collections_added += static_cast<int>(
            copy_mapped_rows(m_dst, m_into.path(), k_attached, "line_collections"));
        m_counts.line_rows_added += copy_mapped_rows(m_dst, m_into.path(), k_attached, "line_counters");
      }
    }
    if (has_table(m_src, m_source.path(), "baselines")) merge_baselines();
    return m_counts;
  }

private:
  void map_gpus() {
    std::unordered_map<std::string, std::int64_t> dest;
    sqlite::statement d(m_dst, m_into.path(), "SELECT id, uuid, backend FROM gpus", "reading GPUs");
    while (d.step()) dest.emplace(d.text(1) + k_sep + d.text(2), d.int64(0));
    sqlite::statement s(m_src, m_source.path(), "SELECT id, uuid, backend FROM gpus ORDER BY id", "reading GPUs");
    while (s.step()) {
      const auto it = dest.find(s.text(1) + k_sep + s.text(2));
      if (it != dest.end()) {
        m_gpu_ids[s.int64(0)] = it->second;
        continue;
      }
      m_gpu_ids[s.int64(0)] = m_gpus.copy(s.int64(0), 0).front().second;
      ++m_counts.gpus_added;
    }
  }

  void load_dest_runs() {
    sqlite::statement d(m_dst, m_into.path(), run_identity_sql(m_dst, m_into.path()).c_str(), "reading runs");
    while (d.step()) m_dest_runs[run_key(d, 4)] = {d.int64(0), d.text(1)};
  }

  void merge_run(const sqlite::statement& src) {
    const std::int64_t src_id = src.int64(0);
    const auto it = m_dest_runs.find(run_key(src, 4));
    if (it == m_dest_runs.end()) {
      const std::int64_t id = m_runs.copy(src_id, m_gpu_ids.at(src.int64(3))).front().second;
      copy_configurations(src_id, id, {});
      ++m_counts.runs_added;
      return;
    }
    const dest_run& d = it->second;
    const int before = m_counts.configurations_added, lines_before = m_counts.line_collections_added;
    copy_configurations(src_id, d.id, seqs_of(d.id));
    bool changed = m_counts.configurations_added > before || m_counts.line_collections_added > lines_before;
    if (d.status == name_of(run_status::running) && src.text(1) != name_of(run_status::running)) {
      // The copy in `into` was taken while the run was going; the source saw it end.
      sqlite::statement up(m_dst, m_into.path(), "UPDATE runs SET status = ?, finished_at = ? WHERE id = ?",
                           "updating a merged run");
      up.run(src.text(1), sqlite::null_if_empty(src.text(2)), d.id);
      if (m_src_has_attach) copy_attach_end(src_id, d.id);
      changed = true;
    }
    ++(changed ? m_counts.runs_extended : m_counts.runs_present);
  }

  /// How an attached program ended (schema 9), for a run `into` copied while it was going.
  void copy_attach_end(std::int64_t src_id, std::int64_t dst_id) {
    sqlite::statement src(m_src, m_source.path(), "SELECT program_exit, note FROM runs WHERE id = ?", "reading runs");
    src.bind(src_id);
    if (!src.step()) return;
    const std::optional<std::int64_t> exit = src.is_null(0) ? std::nullopt : std::optional<std::int64_t>(src.int64(0));
    sqlite::statement up(m_dst, m_into.path(), "UPDATE runs SET program_exit = ?, note = ? WHERE id = ?",
                         "updating a merged run");
    up.run(exit, sqlite::null_if_empty(src.text(1)), dst_id);
  }

  /// seq -> configuration id of run `run_id` in `into`.
  std::map<std::int64_t, std::int64_t> seqs_of(std::int64_t run_id) {
    std::map<std::int64_t, std::int64_t> seqs;
    sqlite::statement st(m_dst, m_into.path(), "SELECT seq, id FROM configurations WHERE run_id = ?",
                         "reading configurations");
    st.bind(run_id);
    while (st.step()) seqs.emplace(st.int64(0), st.int64(1));
    return seqs;
  }

  void copy_lines(std::int64_t from, std::int64_t to) {
    if (m_line_collections->copy(from, to).empty()) return;
    ++m_counts.line_collections_added;
    m_counts.line_rows_added += static_cast<std::int64_t>(m_line_counters->copy(from, to).size());
  }

  /// The lines of configuration `from` for `to`, already in `into`, where `into` has none for it:
  /// they were collected after `into` took its copy of the configuration.
  void add_missing_lines(std::int64_t from, std::int64_t to) {
    if (!m_line_collections) return;
    sqlite::statement has(m_dst, m_into.path(), "SELECT 1 FROM line_collections WHERE configuration_id = ?",
                          "reading line collections");
    has.bind(to);
    if (has.step()) return;
    // Rows without their collection, should a copy hold any, give way to the source's.
    sqlite::statement drop(m_dst, m_into.path(), "DELETE FROM line_counters WHERE configuration_id = ?",
                           "merging line counters");
    drop.run(to);
    copy_lines(from, to);
  }

  void copy_configurations(std::int64_t src_run, std::int64_t dst_run,
                           const std::map<std::int64_t, std::int64_t>& present) {
    sqlite::statement st(m_src, m_source.path(), "SELECT id, seq FROM configurations WHERE run_id = ? ORDER BY seq",
                         "reading configurations");
    st.bind(src_run);
    while (st.step()) {
      const std::int64_t from = st.int64(0);
      if (const auto there = present.find(st.int64(1)); there != present.end()) {
        add_missing_lines(from, there->second);
        continue;
      }
      const std::int64_t to = m_configurations.copy(from, dst_run).front().second;
      ++m_counts.configurations_added;
      if (m_bulk) {
        m_map.run(from, to);
        continue;
      }
      m_counts.metric_rows_added += static_cast<std::int64_t>(m_metrics.copy(from, to).size());
      m_timings.copy(from, to);
      m_counts.sample_rows_added += static_cast<std::int64_t>(m_samples.copy(from, to).size());
      m_expectations.copy(from, to);
      if (m_line_collections) copy_lines(from, to);
    }
  }

  void merge_baselines() {
    sqlite::statement src(m_src, m_source.path(), "SELECT name, content_json FROM baselines ORDER BY name",
                          "reading baselines");
    sqlite::statement find(m_dst, m_into.path(), "SELECT content_json FROM baselines WHERE name = ?",
                           "reading baselines");
    sqlite::statement ids(m_src, m_source.path(), "SELECT id FROM baselines WHERE name = ?", "reading baselines");
    row_copier copier(m_src, m_dst, m_source.path(), m_into.path(), "baselines", "id", nullptr);
    while (src.step()) {
      find.bind(src.text(0));
      if (find.step()) {
        if (find.text(0) == src.text(1))
          ++m_counts.baselines_present;
        else
          m_counts.baselines_differing.push_back(src.text(0));
        continue;
      }
      ids.bind(src.text(0));
      if (ids.step()) copier.copy(ids.int64(0), 0);
      ++m_counts.baselines_added;
    }
  }

  database& m_into;
  const database& m_source;
  sqlite3* m_dst;
  sqlite3* m_src;
  bool m_bulk;
  bool m_src_has_attach = has_column(m_src, m_source.path(), "runs", "note");
  sqlite::statement m_map{m_dst, m_into.path(), "INSERT INTO temp.bb_merge_map (old_id, new_id) VALUES (?, ?)",
                          "merging"};
  row_copier m_gpus, m_runs, m_configurations, m_metrics, m_timings, m_samples, m_expectations;
  std::optional<row_copier> m_line_collections, m_line_counters;
  std::unordered_map<std::int64_t, std::int64_t> m_gpu_ids; // source GPU id -> id in `into`
  std::unordered_map<std::string, dest_run> m_dest_runs;    // run_key -> run in `into`
  merge_counts m_counts;
};

// PRAGMA foreign_keys = OFF for its lifetime, ON again after.
class foreign_keys_off {
public:
  explicit foreign_keys_off(database& db) : m_db(db) {
    sqlite::exec(db.handle(), db.path(), "PRAGMA foreign_keys = OFF", "merging");
  }
  ~foreign_keys_off() { sqlite3_exec(m_db.handle(), "PRAGMA foreign_keys = ON", nullptr, nullptr, nullptr); }
  foreign_keys_off(const foreign_keys_off&) = delete;
  foreign_keys_off& operator=(const foreign_keys_off&) = delete;

private:
  database& m_db;
};

// The source attached read-only to `into` as bb_merge_source for its lifetime (ATTACH and
// DETACH cannot run inside a transaction).
class attached {
public:
  attached(database& into, const std::string& source) : m_into(into) {
    sqlite::statement st(into.handle(), into.path(), "ATTACH ? AS bb_merge_source",
                         fmt::format("attaching {} read-only", source));
    st.run(read_only_uri(source));
  }
  ~attached() { sqlite3_exec(m_into.handle(), "DETACH bb_merge_source", nullptr, nullptr, nullptr); }
  attached(const attached&) = delete;
  attached& operator=(const attached&) = delete;

private:
  database& m_into;
};

} // namespace

merge_counts merge_database(database& into, const database& source, merge_method method) {
  // An empty file (no schema yet) holds nothing to merge.
  if (source.user_version() == 0) return {};
  // Without URI file names, ATTACH would take "file:..." for a name and create that file.
  const bool bulk = method == merge_method::fastest && sqlite3_compileoption_used("USE_URI") != 0;
  // Parents are copied before their children, so checking every row's foreign key (a lookup per
  // metric row) buys nothing; the pragma only takes effect outside a transaction.
  const foreign_keys_off fk(into);
  std::optional<attached> source_attached;
  if (bulk) source_attached.emplace(into, source.path());
  sqlite::transaction tx(into.handle(), into.path(), fmt::format("merging {}", source.path()));
  sqlite::exec(into.handle(), into.path(),
               "CREATE TEMP TABLE IF NOT EXISTS bb_merge_map (old_id INTEGER PRIMARY KEY, new_id INTEGER NOT NULL); "
               "DELETE FROM temp.bb_merge_map",
               "merging");
  merge_counts counts = merger(into, source, bulk).run();
  tx.commit();
  return counts;
}

} // namespace bb::store
