#pragma once
/// Copying rows of one table between two connections, private to the store's merge: every column
/// both tables have is copied as it is, except the row id and one foreign key that is remapped.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace bb::store {

/// The column names of `table` in `schema` ("main", or an attached one), in their order.
std::vector<std::string> columns_of(sqlite3* db, const std::string& path, const std::string& table,
                                    const char* schema = "main");

class row_copier {
public:
  /// Copies rows of `table` whose column `select_by` has the value given to copy(), with column
  /// `remap` (none when nullptr) set to the other value given. The names come from this build.
  row_copier(sqlite3* src, sqlite3* dst, const std::string& src_path, const std::string& dst_path, const char* table,
             const char* select_by, const char* remap);
  ~row_copier();
  row_copier(const row_copier&) = delete;
  row_copier& operator=(const row_copier&) = delete;

  /// (id in the source, id in the destination) of each row copied, in id order; both ids are 0
  /// for a table without an id column.
  std::vector<std::pair<std::int64_t, std::int64_t>> copy(std::int64_t select_value, std::int64_t remap_value);

private:
  sqlite3* m_src;
  sqlite3* m_dst;
  const std::string* m_src_path;
  const std::string* m_dst_path;
  std::string m_table;
  bool m_has_id = false;
  bool m_remap = false;
  int m_columns = 0; ///< copied as they are
  sqlite3_stmt* m_select = nullptr;
  sqlite3_stmt* m_insert = nullptr;
};

/// The rows of `table` in the attached schema `source` whose configuration_id is a key of
/// temp.bb_merge_map, copied into main.`table` under the mapped configuration id in one
/// INSERT ... SELECT: every column both have but the row id. Returns the number of rows.
std::int64_t copy_mapped_rows(sqlite3* db, const std::string& path, const char* source, const char* table);

} // namespace bb::store
