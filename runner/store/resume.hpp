#pragma once
/// What `bankbench run --resume RUN` needs from the store.
#include <cstdint>
#include <vector>

#include "runner/store/database.hpp"

namespace bb::store {

/// Sequence numbers of the configurations run `run_id` already holds, ascending.
std::vector<int> stored_sequences(database& db, std::int64_t run_id);

/// Marks a run as running again (clears finished_at; this process and host become its writer), before its remaining configurations run.
void reopen_run(database& db, std::int64_t run_id);

/// A run written before sessions existed joins the session that resumes it; a run that has a
/// session keeps it.
void adopt_run(database& db, std::int64_t run_id, std::int64_t session_id);

} // namespace bb::store
