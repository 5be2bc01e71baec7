#pragma once
/// Thin RAII over the SQLite C API, private to the store: statements bind every value, so no SQL
/// text is ever built from user input, and every failure becomes a bb::store_error naming the
/// database, the operation and SQLite's own message.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace bb::store::sqlite {

/// Throws bb::store_error "<path>: <operation>: <sqlite3_errmsg(db)>".
[[noreturn]] void fail(sqlite3* db, const std::string& path, std::string_view operation);

/// How long a writer that finds the file locked sleeps before its retry number `attempt` (0 first),
/// in microseconds: 50 us, doubling up to 2 ms; -1 once the retry would end after `timeout_ms`.
long retry_delay_us(int attempt, int timeout_ms);

/// Makes a connection that meets another's transaction retry after retry_delay_us, for up to
/// `timeout_ms`, rather than SQLite's own schedule (1, 2, 5, 10, 15, 20, 25 ms...): the workers of
/// `run --devices` share one file, and each commit holds it for well under a millisecond.
void wait_when_busy(sqlite3* db, int timeout_ms);

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
  /// SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB or SQLITE_NULL: what the row holds.
  [[nodiscard]] int type(int column) const;
  [[nodiscard]] std::int64_t int64(int column) const;
  [[nodiscard]] int int32(int column) const { return static_cast<int>(int64(column)); }
  [[nodiscard]] double real(int column) const;
  [[nodiscard]] std::optional<double> optional_real(int column) const;
  /// NULL reads as "".
  [[nodiscard]] std::string text(int column) const;

  /// The index of the result column named `name` (its AS alias, where the SQL gives one); throws
  /// bb::store_error "<path>: <operation>: the result has no column '<name>'" where there is none.
  /// A linear search over the names: look a column up once per statement, not once per row.
  [[nodiscard]] int column_index(std::string_view name) const;
  /// The database path, for messages of the statement's readers.
  [[nodiscard]] const std::string& path() const noexcept { return *m_path; }

private:
  void reset();
  void bind_int(int index, std::int64_t value);
  void bind_real(int index, double value);
  void bind_text(int index, std::string_view value);
  void bind_null(int index);

  template <class T> void bind_one(int index, const T& value) {
    if constexpr (std::is_same_v<T, std::nullptr_t>) {
      bind_null(index);
    } else if constexpr (requires {
                           value.has_value();
                           *value;
                         }) {
      if (value.has_value())
        bind_one(index, *value);
      else
        bind_null(index);
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

/// One column of a read model: the SQL that selects it, the name it is selected as, how its value
/// is stored into `Record`, and the schema version that added it. Each column of a record is
/// written once, in a table of these that gives both the SELECT list and the read.
template <class Record> struct field {
  const char* sql;  ///< "r.started_at"
  const char* name; ///< "started_at": the alias, which the read looks up
  void (*read)(const statement& st, int column, Record& into);
  int since_version = 1; ///< a database older than this selects NULL in its place
};

/// "<sql> AS <name>, ..." for `fields`; a field added after `version` reads NULL ("" or 0).
template <class Record> std::string select_list(std::span<const field<Record>> fields, int version) {
  std::string out;
  for (const auto& f : fields) {
    if (!out.empty()) out += ", ";
    out += version < f.since_version ? "NULL" : f.sql;
    out += " AS ";
    out += f.name;
  }
  return out;
}

/// Reads the rows of one statement into `Record` by column name: every name is looked up once,
/// when the reader is made, so a missing column fails before the first row is read.
template <class Record> class row_reader {
public:
  row_reader(const statement& st, std::span<const field<Record>> fields) : m_st(&st), m_fields(fields) {
    m_columns.reserve(fields.size());
    for (const auto& f : fields) m_columns.push_back(st.column_index(f.name));
  }
  /// Stores the current row's columns into `into`.
  void read(Record& into) const {
    for (std::size_t i = 0; i < m_fields.size(); ++i) m_fields[i].read(*m_st, m_columns[i], into);
  }

private:
  const statement* m_st;
  std::span<const field<Record>> m_fields;
  std::vector<int> m_columns;
};

/// Empty text is stored as NULL: optional columns then read naturally in the sqlite3 shell.
inline std::optional<std::string_view> null_if_empty(std::string_view text) {
  if (text.empty()) return std::nullopt;
  return text;
}

/// BEGIN IMMEDIATE on construction (so two writers queue on the busy handler instead of failing
/// mid-transaction); rolls back on destruction unless commit() ran. Inside a transaction already
/// open on the connection (a database::write_batch) it joins that one: commit() and the
/// destructor leave it to its owner.
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
