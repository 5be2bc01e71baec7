#pragma once
/// The store's read models, private to the store: a run joined with its GPU, a GPU and a
/// configuration's own columns, each read by column name in exactly one place, whatever command
/// asks (list, show, compare, regress ...).
#include <string>

#include "runner/store/records.hpp"
#include "runner/store/sqlite.hpp"

namespace bb::store {

/// Reads a GPU from a statement that selects gpu_reader::columns() from "gpus g".
class gpu_reader {
public:
  /// "g.uuid AS gpu_uuid, g.name AS gpu_name, ...".
  static std::string columns();
  explicit gpu_reader(const sqlite::statement& st);
  [[nodiscard]] gpu_record read() const;

private:
  sqlite::row_reader<gpu_record> m_gpu;
};

/// Reads a run with its GPU from a statement that selects run_reader::columns(version) from
/// "runs r JOIN gpus g ON g.id = r.gpu_id".
class run_reader {
public:
  /// The run's columns, then its GPU's. In a database of schema `version` (open_read_only keeps an
  /// older one as it is) a column added after it reads as NULL: "" and 0, as in a record that
  /// never set it.
  static std::string columns(int version);
  explicit run_reader(const sqlite::statement& st);
  /// Stores the current row into `into` (a run_row's counts are the caller's to read).
  void read(run_detail& into) const;

private:
  sqlite::row_reader<run_detail> m_run;
  gpu_reader m_gpu;
};

/// Reads a configuration's own columns from a statement that selects
/// configuration_reader::columns() from "configurations c"; c.id is selected as configuration_id.
class configuration_reader {
public:
  static std::string columns();
  explicit configuration_reader(const sqlite::statement& st);
  void read(stored_configuration& into) const;

private:
  sqlite::row_reader<stored_configuration> m_configuration;
};

} // namespace bb::store
