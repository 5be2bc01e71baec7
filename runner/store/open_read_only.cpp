// database::open_read_only: a database we only read from, never upgraded nor check-pointed.
#include <sqlite3.h>

#include <filesystem>

#include <fmt/format.h>

#include "common/error.hpp"
#include "store/database.hpp"
#include "store/read_only_uri.hpp"
#include "store/schema.hpp"
#include "store/sqlite.hpp"

namespace bb::store {

database database::open_read_only(const std::string& path) {
  std::error_code ec;
  if (path.empty() || !std::filesystem::is_regular_file(path, ec))
    throw store_error(fmt::format("no database at {}", path));
  // Without a -wal file beside it the file holds everything: "immutable" reads it without the
  // -shm and -wal files a WAL database otherwise gets, so the source folder is left as it was.
  const std::string name = read_only_uri(path);
  sqlite3* raw = nullptr;
  const int rc =
      sqlite3_open_v2(name.c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
  database db(std::unique_ptr<sqlite3, closer>(raw), path);
  if (rc != SQLITE_OK) sqlite::fail(raw, path, "opening the database read-only");
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, 10'000);
  schema::check(raw, path, schema::k_version);
  sqlite::exec(raw, path, "PRAGMA query_only = 1", "opening the database read-only");
  return db;
}

} // namespace bb::store
