#include "runner/store/sqlite.hpp"

#include <chrono>
#include <cstdint>
#include <thread>

#include <sqlite3.h>

#include <fmt/format.h>

#include "runner/common/error.hpp"
#include "runner/common/path_text.hpp"

namespace bb::store::sqlite {

void fail(sqlite3* db, const std::string& path, std::string_view operation) {
  const char* message = db != nullptr ? sqlite3_errmsg(db) : "out of memory";
  throw store_error(fmt::format("{}: {}: {}", shown_path(path), operation, message));
}

long retry_delay_us(int attempt, int timeout_ms) {
  constexpr long k_first = 50, k_last = 2000;
  constexpr int k_doublings = 6; // 50, 100, ... 1600, then 2000 each
  if (attempt < 0) return -1;
  const long delay = attempt < k_doublings ? k_first << attempt : k_last;
  const long before = attempt <= k_doublings ? k_first * ((1L << attempt) - 1)
                                             : k_first * ((1L << k_doublings) - 1) + k_last * (attempt - k_doublings);
  return before + delay > 1000L * timeout_ms ? -1 : delay;
}

namespace {
int sleep_and_retry(void* timeout_ms, int attempt) {
  const long us = retry_delay_us(attempt, static_cast<int>(reinterpret_cast<std::intptr_t>(timeout_ms)));
  if (us < 0) return 0; // SQLITE_BUSY reaches the caller
  std::this_thread::sleep_for(std::chrono::microseconds(us));
  return 1;
}
} // namespace

void wait_when_busy(sqlite3* db, int timeout_ms) {
  sqlite3_busy_handler(db, sleep_and_retry, reinterpret_cast<void*>(static_cast<std::intptr_t>(timeout_ms)));
}

void exec(sqlite3* db, const std::string& path, std::string_view sql, std::string_view operation) {
  // sqlite3_exec needs a terminated string; scripts are small, so the copy costs nothing.
  const std::string text(sql);
  if (sqlite3_exec(db, text.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) fail(db, path, operation);
}

statement::statement(sqlite3* db, const std::string& path, const char* sql, std::string_view operation)
    : m_db(db), m_path(&path), m_operation(operation) {
  if (sqlite3_prepare_v2(db, sql, -1, &m_stmt, nullptr) != SQLITE_OK) fail(db, path, operation);
}

statement::~statement() { sqlite3_finalize(m_stmt); }

statement::statement(statement&& other) noexcept
    : m_db(other.m_db), m_path(other.m_path), m_stmt(other.m_stmt), m_operation(std::move(other.m_operation)) {
  other.m_stmt = nullptr;
}

void statement::reset() {
  sqlite3_reset(m_stmt);
  sqlite3_clear_bindings(m_stmt);
}

void statement::bind_int(int index, std::int64_t value) {
  if (sqlite3_bind_int64(m_stmt, index, value) != SQLITE_OK) fail(m_db, *m_path, m_operation);
}

void statement::bind_real(int index, double value) {
  if (sqlite3_bind_double(m_stmt, index, value) != SQLITE_OK) fail(m_db, *m_path, m_operation);
}

void statement::bind_text(int index, std::string_view value) {
  if (sqlite3_bind_text64(m_stmt, index, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8) != SQLITE_OK)
    fail(m_db, *m_path, m_operation);
}

void statement::bind_null(int index) {
  if (sqlite3_bind_null(m_stmt, index) != SQLITE_OK) fail(m_db, *m_path, m_operation);
}

bool statement::step() {
  const int rc = sqlite3_step(m_stmt);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  fail(m_db, *m_path, m_operation);
}

int statement::type(int column) const { return sqlite3_column_type(m_stmt, column); }

bool statement::is_null(int column) const { return sqlite3_column_type(m_stmt, column) == SQLITE_NULL; }

std::int64_t statement::int64(int column) const { return sqlite3_column_int64(m_stmt, column); }

double statement::real(int column) const { return sqlite3_column_double(m_stmt, column); }

std::optional<double> statement::optional_real(int column) const {
  if (is_null(column)) return std::nullopt;
  return real(column);
}

std::string statement::text(int column) const {
  const auto* bytes = sqlite3_column_text(m_stmt, column);
  if (bytes == nullptr) return {};
  return {reinterpret_cast<const char*>(bytes), static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, column))};
}

int statement::column_index(std::string_view name) const {
  const int count = sqlite3_column_count(m_stmt);
  for (int i = 0; i < count; ++i)
    if (const char* n = sqlite3_column_name(m_stmt, i); n != nullptr && name == n) return i;
  throw store_error(fmt::format("{}: {}: the result has no column '{}'", *m_path, m_operation, name));
}

transaction::transaction(sqlite3* db, const std::string& path, std::string_view operation)
    : m_db(db), m_path(&path), m_operation(operation) {
  if (sqlite3_get_autocommit(db) == 0) { // an enclosing transaction: join it
    m_open = false;
    return;
  }
  exec(db, path, "BEGIN IMMEDIATE", m_operation);
}

transaction::~transaction() {
  // A failed ROLLBACK leaves nothing to do here: SQLite rolls back on close anyway.
  if (m_open) sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
}

void transaction::commit() {
  if (!m_open) return; // joined an enclosing transaction, which its owner commits
  exec(m_db, *m_path, "COMMIT", m_operation);
  m_open = false;
}

} // namespace bb::store::sqlite
