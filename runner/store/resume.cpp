#include "runner/store/resume.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <fmt/format.h>

#include "runner/common/error.hpp"
#include "runner/common/host_info.hpp"
#include "runner/common/process.hpp"
#include "runner/store/sqlite.hpp"

namespace bb::store {

std::vector<int> stored_sequences(database& db, std::int64_t run_id) {
  sqlite::statement st(db.handle(), db.path(), "SELECT seq FROM configurations WHERE run_id = ? ORDER BY seq",
                       fmt::format("reading the configurations of run {}", run_id));
  st.bind(run_id);
  std::vector<int> out;
  while (st.step()) out.push_back(st.int32(0));
  return out;
}

void reopen_run(database& db, std::int64_t run_id) {
  const std::string operation = fmt::format("reopening run {} to resume it", run_id);
  // Judged and claimed in one write transaction: of two `--resume` of one run started together,
  // the second sees the first's pid and stops before writing anything.
  sqlite::transaction tx(db.handle(), db.path(), operation);
  {
    sqlite::statement st(db.handle(), db.path(), "SELECT status, pid, host FROM runs WHERE id = ?", operation);
    st.bind(run_id);
    if (st.step() && st.text(0) == "running" && !st.is_null(1) && st.int64(1) != ::getpid() &&
        st.text(2) == host_name() && process_alive(st.int64(1)))
      throw usage_error(
          fmt::format("run {} is being run or resumed by another process (pid {} on {}); wait for it or stop "
                      "it, then resume again if it did not complete the run",
                      run_id, st.int64(1), st.text(2)));
  }
  sqlite::statement st(db.handle(), db.path(),
                       "UPDATE runs SET status = 'running', finished_at = NULL, pid = ?, host = ? WHERE id = ?",
                       operation);
  // The resuming process is now the run's writer: `list runs` judges staleness by it.
  st.run(static_cast<std::int64_t>(::getpid()), host_name(), run_id);
  if (sqlite3_changes(db.handle()) != 1) throw store_error(fmt::format("{}: {}: no such run", db.path(), operation));
  tx.commit();
}

void adopt_run(database& db, std::int64_t run_id, std::int64_t session_id) {
  const std::string operation = fmt::format("adding run {} to session {}", run_id, session_id);
  sqlite::statement st(db.handle(), db.path(), "UPDATE runs SET session_id = ? WHERE id = ? AND session_id IS NULL",
                       operation);
  st.run(session_id, run_id);
}

} // namespace bb::store
