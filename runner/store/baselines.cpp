#include "runner/store/baselines.hpp"

#include <sqlite3.h>

#include <fmt/format.h>

#include "runner/store/sqlite.hpp"

namespace bb::store {

namespace {

constexpr const char* k_columns = "name, created_at, source, experiments, architectures, content_json";

baseline_entry read_entry(const sqlite::statement& st) {
  return {st.text(0), st.text(1), st.text(2), st.text(3), st.text(4), st.text(5)};
}

} // namespace

std::vector<baseline_entry> list_baselines(const database& db) {
  const std::string sql = fmt::format("SELECT {} FROM baselines ORDER BY name", k_columns);
  sqlite::statement st(db.read_handle(), db.path(), sql.c_str(), "listing baselines");
  std::vector<baseline_entry> out;
  while (st.step()) out.push_back(read_entry(st));
  return out;
}

std::optional<baseline_entry> find_baseline(const database& db, const std::string& name) {
  const std::string sql = fmt::format("SELECT {} FROM baselines WHERE name = ?", k_columns);
  sqlite::statement st(db.read_handle(), db.path(), sql.c_str(), fmt::format("reading baseline {}", name));
  st.bind(name);
  if (!st.step()) return std::nullopt;
  return read_entry(st);
}

bool save_baseline(database& db, const baseline_entry& b, bool replace) {
  const std::string operation = fmt::format("saving baseline {}", b.name);
  sqlite::transaction tx(db.handle(), db.path(), operation);
  if (find_baseline(db, b.name)) {
    if (!replace) return false;
    sqlite::statement del(db.handle(), db.path(), "DELETE FROM baselines WHERE name = ?", operation);
    del.run(b.name);
  }
  sqlite::statement st(db.handle(), db.path(),
                       "INSERT INTO baselines (name, created_at, source, experiments, architectures, content_json) "
                       "VALUES (?, ?, ?, ?, ?, ?)",
                       operation);
  st.run(b.name, b.created_at, b.source, b.experiments, b.architectures, b.content_json);
  tx.commit();
  return true;
}

bool delete_baseline(database& db, const std::string& name) {
  sqlite::statement st(db.handle(), db.path(), "DELETE FROM baselines WHERE name = ?",
                       fmt::format("deleting baseline {}", name));
  st.run(name);
  return sqlite3_changes(db.handle()) > 0;
}

} // namespace bb::store
