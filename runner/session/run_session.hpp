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

namespace bb::session {

/// Where a session starts: runs already begun and configurations already stored.
struct resume_point {
  std::int64_t session_id = 0;       ///< the session's row; 0 = not begun yet (made with the first run)
  std::vector<std::int64_t> run_ids; ///< per experiment; 0 = not begun yet
  std::vector<std::set<int>> done;   ///< per experiment: seqs already stored
  explicit resume_point(std::size_t experiments = 0) : run_ids(experiments, 0), done(experiments) {}
};

/// What a session reports as it goes (the supervisor listens to a worker through this).
class session_events {
public:
  virtual ~session_events() = default;
  virtual void session_begun(std::int64_t session_id) = 0;
  virtual void run_begun(std::size_t experiment, std::int64_t run_id) = 0;
  virtual void configuration_started(std::size_t experiment, int seq) = 0;
  /// Configurations run in groups (launch::group): the timing pass of one started earlier begins.
  virtual void configuration_timing(std::size_t experiment, int seq) = 0;
  virtual void configuration_stored(std::size_t experiment, int seq) = 0;
};

/// Set by SIGINT, SIGTERM, SIGHUP or SIGQUIT: the configuration in flight finishes and is
/// stored, then the session stops; g_stop_signal says which (the exit code is 128 + it).
extern std::atomic<bool> g_interrupted;
extern std::atomic<int> g_stop_signal;

/// Installs the handler for the signals that stop a run; the destructor puts back what was there.
class stop_signals {
public:
  stop_signals();
  ~stop_signals();
  stop_signals(const stop_signals&) = delete;
  stop_signals& operator=(const stop_signals&) = delete;
};

/// 128 + the signal that stopped the run (130 for SIGINT).
[[nodiscard]] int interrupted_exit_code();

/// "bankbench --db DB run --resume N [--backend model]", the command that completes run N.
[[nodiscard]] std::string resume_command(const run_plan& plan, std::int64_t run_id);

/// Exit code of a worker whose CUDA context broke: its configuration is stored as failed, and
/// the supervisor goes on in a fresh process.
inline constexpr int k_exit_context_lost = 86;

/// Runs what `start` leaves to do. `events` may be null. With `print_tables`, prints each run's
/// table at the end. Returns the exit code; `start.session_id` and `start.run_ids` name what it wrote.
int run_in_process(const std::vector<config::experiment>& experiments, const run_plan& plan, resume_point& start,
                   session_events* events, bool print_tables);

/// Puts experiments that collect the same counters next to one another, keeping the given order
/// otherwise (each list where its first experiment was). One CUPTI range profiler may be enabled on
/// a context at a time, and switching to another metric list's costs about 0.2 s (H100): the
/// default suite, with its six access_kinds experiments among the others, paid 12 switches.
void group_by_metric_list(std::vector<config::experiment>& experiments);

/// What identifies the measured code and method of a run: a hash over the sources built into
/// bankbench, the experiment's text, the backend and the options that change counters. Runs with
/// different fingerprints are never taken as repeats of one another.
std::string run_fingerprint(const config::experiment& e, const run_plan& plan);

/// Records the end of the session in `db` and prints the one summary line of `bankbench run` (on
/// stderr, also under -q): what ran, what failed, and why the exit code is what it is.
void finish_session(const std::string& db, const resume_point& start, int exit_code);

/// Prints the results table of every run begun in `start` (after a supervised session).
void print_run_tables(const std::string& db, const std::vector<std::int64_t>& run_ids);

} // namespace bb::session
