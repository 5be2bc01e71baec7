#include "runner/store/database.hpp"

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "runner/common/error.hpp"
#include "runner/common/path_text.hpp"
#include "runner/store/schema.hpp"
#include "runner/store/sqlite.hpp"

namespace bb::store {

namespace {

constexpr int k_busy_timeout_ms = 10'000; // a second bankbench writing the same file waits, not fails

using connection = std::unique_ptr<sqlite3, void (*)(sqlite3*)>;

connection connect(const std::string& path, int flags) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  connection db(raw, [](sqlite3* p) { sqlite3_close_v2(p); });
  // SQLite says only "unable to open database file"; the OS's reason is the useful part.
  if (rc != SQLITE_OK && db != nullptr && sqlite3_system_errno(db.get()) != 0)
    throw store_error(fmt::format("cannot open the database {}: {}", shown_path(path),
                                  std::strerror(sqlite3_system_errno(db.get()))));
  if (rc != SQLITE_OK) sqlite::fail(db.get(), path, "opening the database");
  sqlite3_extended_result_codes(db.get(), 1);
  sqlite::wait_when_busy(db.get(), k_busy_timeout_ms);
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
    spdlog::warn("{}: WAL journal mode is not available here (journal mode {}); concurrent readers may wait", path,
                 mode);
  sqlite::exec(db, path, "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL", "setting connection options");
  // BB_TEST_MAX_PAGE_COUNT=N: the file cannot grow past N pages, as on a full disk (tests only).
  if (const char* pages = std::getenv("BB_TEST_MAX_PAGE_COUNT"); pages != nullptr && *pages != '\0')
    sqlite::exec(db, path, fmt::format("PRAGMA max_page_count = {}", std::atoll(pages)), "limiting the file size");
}

} // namespace

void database::closer::operator()(sqlite3* db) const noexcept {
  // A file deleted or replaced while open keeps its -wal beside the name, where SQLite would
  // apply it to whatever file takes that name next (sqlite.org/howtocorrupt.html, 2.4): check-
  // point it into the file we hold and truncate it first.
  int moved = 0;
  if (db != nullptr && sqlite3_file_control(db, "main", SQLITE_FCNTL_HAS_MOVED, &moved) == SQLITE_OK && moved != 0)
    sqlite3_wal_checkpoint_v2(db, "main", SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr);
  sqlite3_close_v2(db);
}

database::database(std::unique_ptr<sqlite3, closer> db, std::string path)
    : m_path(std::make_unique<std::string>(std::move(path))), m_db(std::move(db)) {}

void database::check_persistent(const std::string& path) {
  if (path.empty()) throw store_error("no database path given; use --db FILE");
  if (path == ":memory:" || path.rfind("file:", 0) == 0 || path.rfind(":memory", 0) == 0)
    throw store_error(fmt::format("--db {}: an in-memory database or an SQLite URI would not keep the results; "
                                  "give a file path, e.g. --db results/bankbench.sqlite",
                                  path));
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
    throw store_error(fmt::format("--db {}: not a regular file but {} (a device, FIFO or socket would not keep the "
                                  "results); give a file path, e.g. --db results/bankbench.sqlite",
                                  shown_path(path), file_type_words(st.st_mode)));
}

void database::check_database_file(const std::string& path, const std::string& missing) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) throw store_error(missing);
    throw store_error(fmt::format("cannot open the database {}: {}", shown_path(path), std::strerror(errno)));
  }
  if (!S_ISREG(st.st_mode))
    throw store_error(fmt::format("{} is {}, not a database file", shown_path(path), file_type_words(st.st_mode)));
}

void database::check_file_identity() const {
  if (m_inode == 0) return;
  struct stat st {};
  if (::stat(m_path->c_str(), &st) != 0)
    throw store_error(fmt::format("{}: the database file was deleted or moved while bankbench was writing to it; "
                                  "nothing more is written (what was stored before is in the deleted file)",
                                  *m_path));
  if (static_cast<std::uint64_t>(st.st_dev) != m_device || static_cast<std::uint64_t>(st.st_ino) != m_inode)
    throw store_error(fmt::format("{}: the database file was replaced by another file while bankbench was "
                                  "writing to it; nothing more is written",
                                  *m_path));
}

database database::open(const std::string& path) {
  check_persistent(path);
  std::error_code ec;
  const std::filesystem::path file(path);
  if (file.has_parent_path()) {
    std::filesystem::create_directories(file.parent_path(), ec);
    if (ec)
      throw store_error(fmt::format("cannot create the folder {} for the database {}: {}",
                                    shown_path(file.parent_path().string()), shown_path(path), ec.message()));
  }
  return open_file(path, true);
}

database database::open_existing(const std::string& path) {
  check_persistent(path);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw store_error(fmt::format("{} is a folder; a database is a file, e.g. {}/bankbench.sqlite", shown_path(path),
                                  shown_path(path)));
  check_database_file(path, fmt::format("no database at {}; run `bankbench run` first", shown_path(path)));
  return open_file(path, false);
}

database database::open_file(const std::string& path, bool create) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw store_error(fmt::format("{} is a folder; a database is a file, e.g. {}/bankbench.sqlite", shown_path(path),
                                  shown_path(path)));
  struct stat target {};
  if (::stat(path.c_str(), &target) != 0 && errno != ENOENT)
    throw store_error(fmt::format("cannot {} the database {}: {}", create ? "create" : "open", shown_path(path),
                                  std::strerror(errno)));
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
  schema::check_tables(h, p);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    db.m_device = static_cast<std::uint64_t>(st.st_dev);
    db.m_inode = static_cast<std::uint64_t>(st.st_ino);
  }
  return db;
}

int database::user_version() const {
  sqlite::statement st(m_db.get(), *m_path, "PRAGMA user_version", "reading the schema version");
  return st.step() ? st.int32(0) : 0;
}

} // namespace bb::store
