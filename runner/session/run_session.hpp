#pragma once
/// The run engine: runs experiments' configurations in this process and stores each as it ends.
/// The supervisor (supervisor.hpp) runs it in a worker process per device.
#include <atomic>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "runner/config/experiment.hpp"
#include "runner/session/plan.hpp"

namespace bb::store {
class database;
}

namespace bb::session {

/// Where a session starts: runs already begun and configurations already stored.
struct resume_point {
  std::int64_t session_id = 0;       ///< the session's row; 0 = not begun yet (made with the first run)
  std::vector<std::int64_t> run_ids; ///< per experiment; 0 = not begun yet
  std::vector<std::set<int>> done;   ///< per experiment: seqs already stored
  explicit resume_point(std::size_t experiments = 0) : run_ids(experiments, 0), done(experiments) {}
};

/// Begins the session's row in `db` and gives its id; a resumed run from before sessions joins it.
/// The process that owns the run calls it: the supervisor, or the engine running in this process.
std::int64_t begin_session_row(store::database& db, const run_plan& plan, resume_point& start);

/// What a session reports as it goes (the supervisor listens to a worker through this).
class session_events {
public:
  virtual ~session_events() = default;
  /// The session's row, once the device is open: begun here by default; a worker asks its supervisor.
  virtual std::int64_t open_session(store::database& db, const run_plan& plan, resume_point& start) {
    return begin_session_row(db, plan, start);
  }
  virtual void session_begun(std::int64_t session_id) = 0;
  virtual void run_begun(std::size_t experiment, std::int64_t run_id) = 0;
  virtual void configuration_started(std::size_t experiment, int seq) = 0;
  /// Configurations run in groups (launch::group): the timing pass of one started earlier begins.
  virtual void configuration_timing(std::size_t experiment, int seq) = 0;
  virtual void configuration_stored(std::size_t experiment, int seq) = 0;
};

/// Set by SIGINT, SIGTERM, SIGHUP or SIGQUIT while a run executes (supervisor.hpp): the
/// configuration in flight finishes and is stored, then the session stops; g_stop_signal says which
/// (the exit code is 128 + it).
extern std::atomic<bool> g_interrupted;
extern std::atomic<int> g_stop_signal;

/// 128 + the signal that stopped the run (130 for SIGINT).
[[nodiscard]] int interrupted_exit_code();

/// "bankbench --db DB run --resume N [--backend model]", the command that completes run N.
[[nodiscard]] std::string resume_command(const run_plan& plan, std::int64_t run_id);

/// Exit code of a worker whose CUDA context broke: its configuration is stored as failed, and
/// the supervisor goes on in a fresh process.
inline constexpr int k_exit_context_lost = 86;

/// Runs what `start` leaves to do in this process. `events` may be null. Returns the exit code;
/// `start.session_id` and `start.run_ids` name what it wrote.
int run_in_process(const std::vector<config::experiment>& experiments, const run_plan& plan, resume_point& start,
                   session_events* events);

/// Puts experiments that collect the same counters next to one another, keeping the given order
/// otherwise (each list where its first experiment was). One CUPTI range profiler may be enabled on
/// a context at a time, and switching to another metric list's costs about 0.2 s (H100): the
/// default suite, with its six access_kinds experiments among the others, paid 12 switches.
void group_by_metric_list(std::vector<config::experiment>& experiments);

/// Drops the experiments whose kernels cannot be compiled here (config::experiment::skip_reason:
/// a library of `requires:` not found), each with a warning that names the file and how to point
/// at the library. A skipped experiment is not a failure. Returns how many were dropped.
std::size_t skip_unavailable(std::vector<config::experiment>& experiments);

/// What identifies the measured code and method of a run: a hash over the sources built into
/// bankbench, the experiment's text, the backend and the options that change counters. Runs with
/// different fingerprints are never taken as repeats of one another.
std::string run_fingerprint(const config::experiment& e, const run_plan& plan);

/// Records the end of the session in `db` and gives the one summary line of `bankbench run`: what
/// ran, what failed, and why the exit code is what it is ("" where no session was begun).
[[nodiscard]] std::string finish_session(const std::string& db, const resume_point& start, int exit_code);

} // namespace bb::session
