#include "store/database.hpp"

#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <system_error>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/error.hpp"
#include "store/schema.hpp"
#include "store/sqlite.hpp"

namespace bb::store {

namespace {

constexpr int k_busy_timeout_ms = 10'000; // a second bankbench writing the same file waits, not fails

using connection = std::unique_ptr<sqlite3, void (*)(sqlite3*)>;

connection connect(const std::string& path, int flags) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  connection db(raw, [](sqlite3* p) { sqlite3_close_v2(p); });
  if (rc != SQLITE_OK) sqlite::fail(db.get(), path, "opening the database");
  sqlite3_extended_result_codes(db.get(), 1);
  sqlite3_busy_timeout(db.get(), k_busy_timeout_ms);
  return db;
}

// Judges an existing file over a read-only connection, so a refused file is never written:
// a read-write connection could check-point someone else's WAL into it when it closes.
void check_existing(const std::string& path) {
  const connection probe = connect(path, SQLITE_OPEN_READONLY);
  schema::check(probe.get(), path, schema::k_version);
}

// Switching to WAL needs the file to itself, and SQLite answers SQLITE_BUSY at once (the busy
// handler is not called) while another process is creating or writing the same new database:
// four writers starting together on one new file saw it. So wait for it, as long as for a lock.
std::string switch_to_wal(sqlite3* db, const std::string& path) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(k_busy_timeout_ms);
  for (;;) {
    sqlite3_stmt* raw = nullptr;
    int rc = sqlite3_prepare_v2(db, "PRAGMA journal_mode = WAL", -1, &raw, nullptr);
    std::string mode;
    if (rc == SQLITE_OK) {
      rc = sqlite3_step(raw);
      if (rc == SQLITE_ROW) {
        const auto* text = sqlite3_column_text(raw, 0);
        mode = text != nullptr ? reinterpret_cast<const char*>(text) : "";
      }
    }
    sqlite3_finalize(raw);
    if (rc == SQLITE_ROW || rc == SQLITE_DONE) return mode;
    if ((rc & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() >= deadline)
      sqlite::fail(db, path, "setting WAL journal mode");
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

void set_pragmas(sqlite3* db, const std::string& path) {
  const std::string mode = switch_to_wal(db, path);
  // Some file systems (network mounts) cannot do WAL; SQLite then keeps its rollback journal.
  if (mode != "wal")
    spdlog::warn("{}: WAL journal mode is not available here (journal mode {}); concurrent readers may wait",
                 path, mode);
  sqlite::exec(db, path, "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL", "setting connection options");
}

} // namespace

void database::closer::operator()(sqlite3* db) const noexcept { sqlite3_close_v2(db); }

database::database(std::unique_ptr<sqlite3, closer> db, std::string path)
    : m_path(std::make_unique<std::string>(std::move(path))), m_db(std::move(db)) {}

database database::open(const std::string& path) {
  if (path.empty()) throw store_error("no database path given; use --db FILE");
  std::error_code ec;
  const std::filesystem::path file(path);
  if (file.has_parent_path()) {
    std::filesystem::create_directories(file.parent_path(), ec);
    if (ec)
      throw store_error(fmt::format("{}: creating the folder {}: {}", path, file.parent_path().string(),
                                    ec.message()));
  }
  return open_file(path, true);
}

database database::open_existing(const std::string& path) {
  std::error_code ec;
  if (path.empty() || !std::filesystem::exists(path, ec))
    throw store_error(fmt::format("no database at {}; run `bankbench run` first", path));
  return open_file(path, false);
}

database database::open_file(const std::string& path, bool create) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw store_error(fmt::format("{} is a folder; --db needs a file, e.g. {}/bankbench.sqlite", path, path));
  if (std::filesystem::exists(path, ec)) check_existing(path);
  const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
  connection raw = connect(path, flags);
  database db(std::unique_ptr<sqlite3, closer>(raw.release()), path);
  sqlite3* h = db.m_db.get();
  const std::string& p = *db.m_path;
  // Checked again on this connection: the file may have changed since the probe.
  schema::check(h, p, schema::k_version);
  set_pragmas(h, p);
  if (db.user_version() < schema::k_version) schema::upgrade(h, p, schema::current());
  return db;
}

int database::user_version() const {
  sqlite::statement st(m_db.get(), *m_path, "PRAGMA user_version", "reading the schema version");
  return st.step() ? st.int32(0) : 0;
}

} // namespace bb::store
