#include "runner/store/merge_rows.hpp"

#include <sqlite3.h>

#include <algorithm>

#include <fmt/format.h>

#include "runner/store/sqlite.hpp"

namespace bb::store {

std::vector<std::string> columns_of(sqlite3* db, const std::string& path, const std::string& table,
                                    const char* schema) {
  const std::string sql = fmt::format("SELECT name FROM pragma_table_info('{}', '{}') ORDER BY cid", table, schema);
  sqlite::statement st(db, path, sql.c_str(), "reading the columns of " + table);
  std::vector<std::string> names;
  while (st.step()) names.push_back(st.text(0));
  return names;
}

namespace {

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

sqlite3_stmt* prepare(sqlite3* db, const std::string& path, const std::string& sql, const std::string& operation) {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) sqlite::fail(db, path, operation);
  return st;
}

// Binds column `column` of the row `from` stands on to parameter `param` of `to`. Text and blobs
// are bound without a copy: `from` does not step again before `to` has run.
int bind_column(sqlite3_stmt* to, int param, sqlite3_stmt* from, int column) {
  switch (sqlite3_column_type(from, column)) {
  case SQLITE_INTEGER: return sqlite3_bind_int64(to, param, sqlite3_column_int64(from, column));
  case SQLITE_FLOAT: return sqlite3_bind_double(to, param, sqlite3_column_double(from, column));
  case SQLITE_NULL: return sqlite3_bind_null(to, param);
  case SQLITE_TEXT:
    return sqlite3_bind_text(to, param, reinterpret_cast<const char*>(sqlite3_column_text(from, column)),
                             sqlite3_column_bytes(from, column), SQLITE_STATIC);
  default:
    return sqlite3_bind_blob(to, param, sqlite3_column_blob(from, column), sqlite3_column_bytes(from, column),
                             SQLITE_STATIC);
  }
}

} // namespace

row_copier::row_copier(sqlite3* src, sqlite3* dst, const std::string& src_path, const std::string& dst_path,
                       const char* table, const char* select_by, const char* remap)
    : m_src(src), m_dst(dst), m_src_path(&src_path), m_dst_path(&dst_path), m_table(table), m_remap(remap != nullptr) {
  const auto src_columns = columns_of(src, src_path, m_table);
  const auto dst_columns = columns_of(dst, dst_path, m_table);
  m_has_id = contains(src_columns, "id") && contains(dst_columns, "id");
  std::string copied;
  for (const auto& c : dst_columns) {
    if (c == "id" || (remap != nullptr && c == remap) || !contains(src_columns, c)) continue;
    copied += (copied.empty() ? "\"" : ", \"") + c + "\"";
    ++m_columns;
  }
  const std::string operation = "copying " + m_table;
  const std::string select = fmt::format("SELECT {}{} FROM \"{}\" WHERE \"{}\" = ?{}", m_has_id ? "id, " : "", copied,
                                         m_table, select_by, m_has_id ? " ORDER BY id" : "");
  m_select = prepare(src, src_path, select, operation);
  std::string values;
  for (int i = 0; i < m_columns + (m_remap ? 1 : 0); ++i) values += i == 0 ? "?" : ", ?";
  const std::string insert = fmt::format("INSERT INTO \"{}\" ({}{}) VALUES ({})", m_table,
                                         m_remap ? fmt::format("\"{}\", ", remap) : "", copied, values);
  m_insert = prepare(dst, dst_path, insert, operation);
}

row_copier::~row_copier() {
  sqlite3_finalize(m_select);
  sqlite3_finalize(m_insert);
}

std::vector<std::pair<std::int64_t, std::int64_t>> row_copier::copy(std::int64_t select_value,
                                                                    std::int64_t remap_value) {
  const std::string operation = "copying " + m_table;
  std::vector<std::pair<std::int64_t, std::int64_t>> ids;
  sqlite3_reset(m_select);
  if (sqlite3_bind_int64(m_select, 1, select_value) != SQLITE_OK) sqlite::fail(m_src, *m_src_path, operation);
  int rc = 0;
  while ((rc = sqlite3_step(m_select)) == SQLITE_ROW) {
    sqlite3_reset(m_insert);
    const int first = m_has_id ? 1 : 0; // the source's id is read, never written
    int param = 1;
    if (m_remap && sqlite3_bind_int64(m_insert, param++, remap_value) != SQLITE_OK)
      sqlite::fail(m_dst, *m_dst_path, operation);
    for (int c = 0; c < m_columns; ++c)
      if (bind_column(m_insert, param++, m_select, first + c) != SQLITE_OK) sqlite::fail(m_dst, *m_dst_path, operation);
    if (sqlite3_step(m_insert) != SQLITE_DONE) sqlite::fail(m_dst, *m_dst_path, operation);
    ids.emplace_back(m_has_id ? sqlite3_column_int64(m_select, 0) : 0, m_has_id ? sqlite3_last_insert_rowid(m_dst) : 0);
  }
  if (rc != SQLITE_DONE) sqlite::fail(m_src, *m_src_path, operation);
  return ids;
}

std::int64_t copy_mapped_rows(sqlite3* db, const std::string& path, const char* source, const char* table) {
  const auto from = columns_of(db, path, table, source);
  std::string copied, selected;
  for (const auto& c : columns_of(db, path, table)) {
    if (c == "id" || c == "configuration_id" || !contains(from, c)) continue;
    copied += ", \"" + c + "\"";
    selected += ", s.\"" + c + "\"";
  }
  // CROSS JOIN keeps the map outside: configurations in id order, each one's rows by its key
  // (expectations by id), so the copies keep their order and nothing is sorted.
  const std::string sql =
      fmt::format("INSERT INTO main.\"{0}\" (configuration_id{1}) SELECT map.new_id{2} FROM temp.bb_merge_map map "
                  "CROSS JOIN \"{3}\".\"{0}\" s ON s.configuration_id = map.old_id",
                  table, copied, selected, source);
  sqlite::exec(db, path, sql, std::string("copying ") + table);
  return sqlite3_changes64(db);
}

} // namespace bb::store
