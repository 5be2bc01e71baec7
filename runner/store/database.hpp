#pragma once
/// The results database: one SQLite file (WAL) holding GPUs, runs, configurations and their
/// measurements (schemas/store.sql; docs/database.md for users). No CUDA headers.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runner/store/records.hpp"
#include "runner/store/samples.hpp"

struct sqlite3;

namespace bb::store {

namespace sqlite {
class transaction;
}

/// An open results database. Move-only; every SQLite failure throws bb::store_error with the
/// path, the operation and SQLite's message.
class database {
public:
  /// Opens `path`, creating it and its parent folder when missing, and brings an older schema up
  /// to date. Refuses, without changing a byte, a file that is not SQLite, a SQLite file that is
  /// not ours, or a database from a newer bankbench.
  static database open(const std::string& path);
  /// As open(), but a missing file is an error: for commands that only read.
  static database open_existing(const std::string& path);
  /// Opens an existing database without ever writing to it (merge sources): refuses a missing
  /// file, a file that is not ours and a newer schema; an older schema is read as it is.
  static database open_read_only(const std::string& path);
  /// For commands that only query: an existing database opened with mode=ro (and immutable=1
  /// where its folder cannot be written), so archived and shared files can always be read. An
  /// older schema is brought up to date first where the file can be written.
  static database open_for_query(const std::string& path);
  /// Refuses a path that would not keep what is written to it: ":memory:", "" and SQLite URIs
  /// ("file:..."), and anything that exists but is not a regular file (/dev/null, a FIFO).
  static void check_persistent(const std::string& path);
  /// Refuses, in words, a path that names no database file to read: missing (`missing` is the
  /// message then), out of reach (the OS reason: a name too long, a folder without permission), a
  /// folder or a FIFO, device or socket.
  static void check_database_file(const std::string& path, const std::string& missing);

  database(database&&) noexcept = default;
  database& operator=(database&&) noexcept = default;
  database(const database&) = delete;
  database& operator=(const database&) = delete;
  ~database() = default;

  // ---- writing ----

  /// The GPU's id; a GPU seen before (same uuid and backend) keeps its id and first_seen_at, and
  /// its name, clocks and driver versions are updated.
  std::int64_t upsert_gpu(const gpu_record& gpu);
  /// Records a run with status 'running', committed at once so an interrupted run is kept.
  /// Records the start of a `bankbench run` invocation (status 'running'); returns its id.
  std::int64_t begin_session(const session_record& session);
  /// Records its end: 'completed', 'interrupted' or 'failed', and the exit code.
  void finish_session(std::int64_t session_id, run_status status, int exit_code);
  std::int64_t begin_run(std::int64_t gpu_id, const run_record& run);
  /// Writes one configuration with its metrics, timing, samples and expectations in one
  /// transaction (or in the write_batch open on this database): all of its rows or, when
  /// anything fails, none. Returns its id.
  std::int64_t add_configuration(std::int64_t run_id, const configuration_record& configuration);

  /// While it lives, every write to `db` goes into one transaction, committed by commit() (the
  /// file checked first, as before every commit) and rolled back if it is destroyed before. A
  /// commit costs more than a configuration's rows (on the build host, 1.1-1.4 ms per
  /// configuration committed one by one, 0.37-0.41 ms in one transaction), so `run` stores each
  /// group of configurations profiled together in one.
  class write_batch {
  public:
    write_batch(database& db, std::string operation);
    ~write_batch();
    write_batch(const write_batch&) = delete;
    write_batch& operator=(const write_batch&) = delete;
    void commit();

  private:
    database& m_db;
    std::unique_ptr<sqlite::transaction> m_tx;
  };
  /// Sets the run's status ('completed', 'interrupted' or 'failed') and finished_at to now.
  void finish_run(std::int64_t run_id, run_status status);
  /// As finish_run, for a run of `bankbench attach`: also the program's exit code (128 + signal
  /// when a signal ended it; empty: unknown) and how the run ended in words (empty: NULL).
  void finish_attach(std::int64_t run_id, run_status status, std::optional<int> program_exit, const std::string& note);

  // ---- reading ----

  /// Every run, newest first.
  [[nodiscard]] std::vector<run_row> runs() const;
  /// The newest run's id; empty when there are no runs.
  [[nodiscard]] std::optional<std::int64_t> latest_run_id() const;
  /// The run with its GPU; empty when there is no run `run_id`.
  [[nodiscard]] std::optional<run_detail> run(std::int64_t run_id) const;
  /// The run's configurations in seq order, with metric means over launches.
  [[nodiscard]] std::vector<configuration_row> configurations(std::int64_t run_id) const;
  /// Every GPU, in the order first seen.
  [[nodiscard]] std::vector<gpu_row> gpus() const;

  /// PRAGMA user_version: the schema version of the open file.
  [[nodiscard]] int user_version() const;
  /// The path as given to open(), for messages.
  [[nodiscard]] const std::string& path() const noexcept { return *m_path; }
  /// Throws store_error when the file at path() is no longer the one opened (deleted, or replaced
  /// by another file): whatever is committed then would be lost. Called before every commit.
  void check_file_identity() const;
  /// The raw connection, for tests and ad-hoc queries.
  sqlite3* handle() noexcept { return m_db.get(); }
  /// The connection for the store's own readers (store/*.cpp), which only read through it.
  [[nodiscard]] sqlite3* read_handle() const noexcept { return m_db.get(); }

private:
  struct closer {
    void operator()(sqlite3* db) const noexcept;
  };
  database(std::unique_ptr<sqlite3, closer> db, std::string path);
  static database open_file(const std::string& path, bool create);
  /// A read-only connection through a "file:" URI; the schema is checked, not upgraded.
  static database open_uri(const std::string& path, const std::string& uri);

  // The path lives on the heap so error messages keep pointing at it after a move.
  std::unique_ptr<std::string> m_path;
  std::unique_ptr<sqlite3, closer> m_db;
  std::uint64_t m_device = 0, m_inode = 0; ///< the file opened; 0: not checked (read-only)
};

} // namespace bb::store
