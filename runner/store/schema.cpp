#include "runner/store/schema.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <sqlite3.h>

#include <fmt/format.h>

#include "runner/common/error.hpp"
#include "runner/common/path_text.hpp"
#include "runner/store/sqlite.hpp"

namespace bb::embedded {
extern const char store_schema[];
extern const char store_migration_2[];
extern const char store_migration_3[];
extern const char store_migration_4[];
extern const char store_migration_5[];
extern const char store_migration_6[];
extern const char store_migration_7[];
extern const char store_migration_8[];
extern const char store_migration_9[];
} // namespace bb::embedded

namespace bb::store::schema {

namespace {

// Version 6 widens configurations.status's check. SQLite cannot alter a check constraint, and
// rebuilding the table would cascade-delete its metrics; a check constraint does not touch the
// stored rows, so the table's recorded SQL is rewritten in place (SQLite's documented route for
// such changes: PRAGMA writable_schema) and the schema cookie moved so every connection rereads it.
void widen_status_check(sqlite3* db, const std::string& path) {
  const char* operation = "upgrading the schema from version 5 to 6 (configuration statuses)";
  const std::string before = "'unsupported', 'skipped'))";
  const std::string after = "'unsupported', 'skipped', 'not_modelled', 'unverified'))";
  std::string sql;
  {
    sqlite::statement st(db, path, "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'configurations'",
                         operation);
    if (st.step()) sql = st.text(0);
  }
  if (sql.find("'not_modelled'") != std::string::npos) return;
  const auto at = sql.find(before);
  if (at == std::string::npos)
    throw store_error(
        fmt::format("{}: {}: the configurations table's status check is not the one bankbench wrote", path, operation));
  sql.replace(at, before.size(), after);
  int cookie = 0;
  {
    sqlite::statement st(db, path, "PRAGMA schema_version", operation);
    if (st.step()) cookie = st.int32(0);
  }
  sqlite::exec(db, path, "PRAGMA writable_schema = ON", operation);
  {
    sqlite::statement st(db, path, "UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = 'configurations'",
                         operation);
    st.run(sql);
  }
  sqlite::exec(db, path, fmt::format("PRAGMA schema_version = {}", cookie + 1), operation);
  sqlite::exec(db, path, "PRAGMA writable_schema = OFF", operation);
}

struct header {
  std::int32_t application_id = 0;
  int user_version = 0;
  std::vector<std::string> objects; ///< names in sqlite_master
};

header read_header(sqlite3* db, const std::string& path) {
  // A file that is not SQLite fails on this first read, with "file is not a database".
  const char* operation = "reading the database header";
  header h;
  sqlite::statement app(db, path, "PRAGMA application_id", operation);
  if (app.step()) h.application_id = static_cast<std::int32_t>(app.int64(0));
  sqlite::statement version(db, path, "PRAGMA user_version", operation);
  if (version.step()) h.user_version = version.int32(0);
  sqlite::statement objects(db, path, "SELECT name FROM sqlite_master ORDER BY name", operation);
  while (objects.step()) h.objects.push_back(objects.text(0));
  return h;
}

// The tables every bankbench schema since version 1 holds.
bool has_bankbench_tables(const std::vector<std::string>& objects) {
  int found = 0;
  for (const std::string& name : objects) found += name == "gpus" || name == "runs" || name == "configurations";
  return found == 3;
}

void check_header(const header& h, const std::string& path, int known_version) {
  const bool ours = h.application_id == k_application_id;
  const bool empty = h.application_id == 0 && h.objects.empty();
  // Version 0 means "nothing created yet": upgrading such a file would create the tables again over
  // the ones it holds. Its data may be fine, but which schema it has is unknown.
  if (h.user_version <= 0 && !h.objects.empty() && (ours || has_bankbench_tables(h.objects)))
    throw store_error(fmt::format("{} looks like a bankbench database whose schema version was reset (user_version "
                                  "{}); it cannot be upgraded safely: restore it or use another --db",
                                  shown_path(path), h.user_version));
  if (!ours && !empty) {
    std::string tables;
    for (std::size_t i = 0; i < h.objects.size() && i < 5; ++i) tables += (i == 0 ? "" : ", ") + h.objects[i];
    if (h.objects.size() > 5) tables += ", ...";
    throw store_error(
        fmt::format("{} is not a bankbench database (application_id {:#010x}, expected {:#010x}; it holds: {}); "
                    "use another --db",
                    shown_path(path), static_cast<std::uint32_t>(h.application_id),
                    static_cast<std::uint32_t>(k_application_id), tables.empty() ? "nothing" : tables));
  }
  if (h.user_version > known_version)
    throw store_error(
        fmt::format("{} was written by a newer bankbench (schema {}, this build knows {}); use a newer bankbench or "
                    "another --db",
                    shown_path(path), h.user_version, known_version));
}

} // namespace

const plan& current() {
  static const plan p{k_version,
                      embedded::store_schema,
                      {{2, embedded::store_migration_2},
                       {3, embedded::store_migration_3},
                       {4, embedded::store_migration_4},
                       {5, embedded::store_migration_5},
                       {6, embedded::store_migration_6},
                       {7, embedded::store_migration_7},
                       {8, embedded::store_migration_8},
                       {9, embedded::store_migration_9}}};
  return p;
}

void check(sqlite3* db, const std::string& path, int known_version) {
  header h;
  try {
    h = read_header(db, path);
  } catch (const store_error&) {
    if ((sqlite3_extended_errcode(db) & 0xff) != SQLITE_NOTADB) throw;
    throw store_error(
        fmt::format("{}: file is not a database (not a SQLite file); use another --db", shown_path(path)));
  }
  check_header(h, path, known_version);
}

void upgrade(sqlite3* db, const std::string& path, const plan& p) {
  sqlite::transaction tx(db, path, "upgrading the schema");
  const header h = read_header(db, path);
  check_header(h, path, p.version);
  int version = h.user_version;
  if (version == p.version) return;
  // PRAGMA takes no parameters; the numbers come from this build, never from input.
  auto set_version = [&](int v) {
    sqlite::exec(db, path, fmt::format("PRAGMA user_version = {}", v), "upgrading the schema");
  };
  if (version == 0) {
    sqlite::exec(db, path, p.create, fmt::format("creating the schema (version {})", p.version));
    set_version(p.version);
    version = p.version;
  }
  for (const migration& m : p.migrations) {
    if (m.version <= version) continue;
    if (m.version != version + 1)
      throw store_error(
          fmt::format("{}: upgrading the schema: no migration from version {} to {}", path, version, version + 1));
    sqlite::exec(db, path, m.sql, fmt::format("upgrading the schema from version {} to {}", version, m.version));
    if (m.version == 6) widen_status_check(db, path);
    set_version(m.version);
    version = m.version;
  }
  if (version != p.version)
    throw store_error(
        fmt::format("{}: upgrading the schema: no migration from version {} to {}", path, version, p.version));
  sqlite::exec(db, path, fmt::format("PRAGMA application_id = {}", k_application_id), "upgrading the schema");
  tx.commit();
}

namespace {

std::vector<std::string> table_names(sqlite3* db, const std::string& path) {
  sqlite::statement st(db, path, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
                       "listing the tables");
  std::vector<std::string> out;
  while (st.step()) out.push_back(st.text(0));
  return out;
}

} // namespace

void check_tables(sqlite3* db, const std::string& path) {
  // The tables a database of this build has: the schema made once in memory, so that migrations
  // that add or rebuild tables are followed without a list kept by hand.
  static const std::vector<std::string> expected = [] {
    sqlite3* mem = nullptr;
    if (sqlite3_open(":memory:", &mem) != SQLITE_OK) {
      sqlite3_close(mem);
      throw store_error("cannot open an in-memory database to check the schema");
    }
    std::vector<std::string> names;
    try {
      upgrade(mem, ":memory:", current());
      names = table_names(mem, ":memory:");
    } catch (...) {
      sqlite3_close(mem);
      throw;
    }
    sqlite3_close(mem);
    return names;
  }();
  const auto have = table_names(db, path);
  std::string missing;
  for (const auto& name : expected)
    if (std::find(have.begin(), have.end(), name) == have.end()) missing += (missing.empty() ? "" : ", ") + name;
  if (!missing.empty())
    throw store_error(fmt::format("{}: the database lacks its table(s) {} (dropped, or a damaged copy); bankbench "
                                  "cannot use it. Use another --db, or restore the file from a copy",
                                  shown_path(path), missing));
}

} // namespace bb::store::schema
