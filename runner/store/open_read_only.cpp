// database::open_read_only: a database we only read from, never upgraded nor check-pointed.
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>

#include <fmt/format.h>

#include "runner/common/error.hpp"
#include "runner/common/path_text.hpp"
#include "runner/store/database.hpp"
#include "runner/store/read_only_uri.hpp"
#include "runner/store/schema.hpp"
#include "runner/store/sqlite.hpp"

namespace bb::store {

database database::open_uri(const std::string& path, const std::string& uri) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(uri.c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
                                 nullptr);
  database db(std::unique_ptr<sqlite3, closer>(raw), path);
  if (rc != SQLITE_OK) sqlite::fail(raw, path, "opening the database read-only");
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, 10'000);
  schema::check(raw, path, schema::k_version);
  return db;
}

database database::open_read_only(const std::string& path) {
  if (path.empty()) throw store_error("no database path given");
  check_database_file(path, fmt::format("no database at {}", shown_path(path)));
  // Without a -wal file beside it the file holds everything: "immutable" reads it without the
  // -shm and -wal files a WAL database otherwise gets, so the source folder is left as it was.
  database db = open_uri(path, read_only_uri(path));
  if (db.user_version() == schema::k_version) schema::check_tables(db.handle(), path); // older: merge maps them
  sqlite::exec(db.handle(), path, "PRAGMA query_only = 1", "opening the database read-only");
  return db;
}

database database::open_for_query(const std::string& path) {
  check_persistent(path);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw store_error(fmt::format("{} is a folder; a database is a file, e.g. {}/bankbench.sqlite", shown_path(path),
                                  shown_path(path)));
  check_database_file(path, fmt::format("no database at {}; run `bankbench run` first", shown_path(path)));
  const auto parent = std::filesystem::absolute(path).parent_path();
  const bool writable = ::access(path.c_str(), W_OK) == 0 && ::access(parent.c_str(), W_OK) == 0;
  database db = open_uri(path, read_only_uri(path, !writable));
  if (db.user_version() < schema::k_version) {
    if (writable) return open_existing(path); // brought up to date once, then read as usual
    throw store_error(fmt::format("{}: schema version {} (this bankbench reads {}) and the file or its folder "
                                  "cannot be written, so it cannot be brought up to date; copy it to a "
                                  "writable folder and run the command on the copy",
                                  path, db.user_version(), schema::k_version));
  }
  schema::check_tables(db.handle(), path);
  sqlite::exec(db.handle(), path, "PRAGMA query_only = 1", "opening the database read-only");
  return db;
}

} // namespace bb::store
