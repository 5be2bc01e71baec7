#pragma once
/// Thin RAII over the SQLite C API, private to the store: statements bind every value, so no SQL
/// text is ever built from user input, and every failure becomes a bb::store_error naming the
/// database, the operation and SQLite's own message.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

struct sqlite3;
struct sqlite3_stmt;

namespace bb::store::sqlite {

/// Throws bb::store_error "<path>: <operation>: <sqlite3_errmsg(db)>".
[[noreturn]] void fail(sqlite3* db, const std::string& path, std::string_view operation);

/// Runs one or more statements that take no parameters (schema scripts, PRAGMAs, BEGIN).
void exec(sqlite3* db, const std::string& path, std::string_view sql, std::string_view operation);

/// One prepared statement. Values are bound by position, in the order of the `?` in the SQL.
class statement {
public:
  statement(sqlite3* db, const std::string& path, const char* sql, std::string_view operation);
  ~statement();
  statement(statement&& other) noexcept;
  statement& operator=(statement&&) = delete;
  statement(const statement&) = delete;
  statement& operator=(const statement&) = delete;

  /// Resets the statement and binds `args` to parameters 1..n.
  template <class... Args> statement& bind(const Args&... args) {
    reset();
    int index = 0;
    (bind_one(++index, args), ...);
    return *this;
  }

  /// Binds `args` and steps to the end; for statements that return no rows.
  template <class... Args> void run(const Args&... args) {
    bind(args...);
    while (step()) {
    }
  }

  /// true while there is a row to read.
  bool step();

  [[nodiscard]] bool is_null(int column) const;
  [[nodiscard]] std::int64_t int64(int column) const;
  [[nodiscard]] int int32(int column) const { return static_cast<int>(int64(column)); }
  [[nodiscard]] double real(int column) const;
  [[nodiscard]] std::optional<double> optional_real(int column) const;
  /// NULL reads as "".
  [[nodiscard]] std::string text(int column) const;

private:
  void reset();
  void bind_int(int index, std::int64_t value);
  void bind_real(int index, double value);
  void bind_text(int index, std::string_view value);
  void bind_null(int index);

  template <class T> void bind_one(int index, const T& value) {
    if constexpr (std::is_same_v<T, std::nullptr_t>) {
      bind_null(index);
    } else if constexpr (requires { value.has_value(); *value; }) {
      if (value.has_value()) bind_one(index, *value);
      else bind_null(index);
    } else if constexpr (std::is_integral_v<T>) {
      // uint64 values above 2^63 wrap to negative; SQLite integers are signed 64-bit.
      bind_int(index, static_cast<std::int64_t>(value));
    } else if constexpr (std::is_floating_point_v<T>) {
      bind_real(index, static_cast<double>(value));
    } else {
      bind_text(index, std::string_view(value));
    }
  }

  sqlite3* m_db;
  const std::string* m_path;
  sqlite3_stmt* m_stmt = nullptr;
  std::string m_operation;
};

/// Empty text is stored as NULL: optional columns then read naturally in the sqlite3 shell.
inline std::optional<std::string_view> null_if_empty(std::string_view text) {
  if (text.empty()) return std::nullopt;
  return text;
}

/// BEGIN IMMEDIATE on construction (so two writers queue on busy_timeout instead of failing
/// mid-transaction); rolls back on destruction unless commit() ran.
class transaction {
public:
  transaction(sqlite3* db, const std::string& path, std::string_view operation);
  ~transaction();
  transaction(const transaction&) = delete;
  transaction& operator=(const transaction&) = delete;
  void commit();

private:
  sqlite3* m_db;
  const std::string* m_path;
  std::string m_operation;
  bool m_open = true;
};

} // namespace bb::store::sqlite
