#include "runner/store/sessions.hpp"

#include "runner/store/sqlite.hpp"

namespace bb::store {

int session_counts::configurations() const {
  int n = 0;
  for (const auto& [status, count] : by_status) n += count;
  return n;
}

session_counts count_session(const database& db, std::int64_t session_id) {
  const char* operation = "counting the session's results";
  session_counts out;
  {
    sqlite::statement st(db.read_handle(), db.path(), "SELECT count(*) FROM runs WHERE session_id = ?", operation);
    st.bind(session_id);
    if (st.step()) out.runs = st.int32(0);
  }
  {
    sqlite::statement st(db.read_handle(), db.path(),
                         "SELECT c.status, count(*) FROM configurations c JOIN runs r ON r.id = c.run_id "
                         "WHERE r.session_id = ? GROUP BY c.status",
                         operation);
    st.bind(session_id);
    while (st.step()) out.by_status[st.text(0)] = st.int32(1);
  }
  {
    sqlite::statement st(db.read_handle(), db.path(),
                         "SELECT count(*) FROM expectations e JOIN configurations c ON c.id = e.configuration_id "
                         "JOIN runs r ON r.id = c.run_id WHERE r.session_id = ? AND e.passed = 0",
                         operation);
    st.bind(session_id);
    if (st.step()) out.failed_expectations = st.int32(0);
  }
  return out;
}

} // namespace bb::store
