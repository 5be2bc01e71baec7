#pragma once
/// The body of `bankbench run`: runs experiments' configurations in this process and stores
/// each as it ends. The supervisor (supervisor.hpp) runs it in a worker process per device.
#include <atomic>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "config/experiment.hpp"

namespace bb::cli {

struct run_options {
  std::vector<std::string> inputs{"experiments"};
  int device = 0;
  std::string backend = "cupti"; ///< cupti: measure on the GPU; model: predict, no GPU needed
  bool no_counters = false;
  bool no_timing = false;    ///< counters and verification only
  bool launch_once = false;  ///< one verified launch per configuration, no profiler, no timing
  std::string cache_control = "all"; ///< all | once | none: see launch::exec_options
  std::string allocator = "pool";    ///< pool | driver: see launch/device_memory.hpp
  bool dry_run = false;
  bool isolate = true;       ///< run configurations in a worker process that may crash
  int samples = 0;           ///< 0: as the experiment file says
  int placements = 0;        ///< 0: as the experiment file says
  int warmup = -1;           ///< -1: as the experiment file says
  double min_sample_us = 200; ///< launch::exec_options::min_sample_ns, in us
  double time_limit_s = 0;   ///< 0: as the experiment file says
  std::int64_t resume = 0;   ///< run id to complete, or 0
  std::string shard;         ///< share of the configurations (config/share.hpp), stored in runs.shard
  std::string devices;       ///< --devices: "all" or "0,2,3"; empty: one device, --device
  std::string spread = "configuration"; ///< --spread over devices: configuration | variant
  bool inputs_given = false; ///< `inputs` named on the command line (not the default)
  std::string command_line;
};

/// Where a session starts: runs already begun and configurations already stored.
struct resume_point {
  std::int64_t session_id = 0;           ///< the session's row; 0 = not begun yet (made with the first run)
  std::vector<std::int64_t> run_ids;     ///< per experiment; 0 = not begun yet
  std::vector<std::set<int>> done;       ///< per experiment: seqs already stored
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
[[nodiscard]] std::string resume_command(const global_options& g, const run_options& o, std::int64_t run_id);

/// Exit code of a worker whose CUDA context broke: its configuration is stored as failed, and
/// the supervisor goes on in a fresh process.
inline constexpr int k_exit_context_lost = 86;

/// Runs what `start` leaves to do. `events` may be null. With `print_tables`, prints each run's
/// table at the end. Returns the exit code; `start.session_id` and `start.run_ids` name what it wrote.
int run_in_process(const std::vector<config::experiment>& experiments, const run_options& o,
                   const global_options& g, resume_point& start, session_events* events,
                   bool print_tables);

/// What identifies the measured code and method of a run: a hash over the sources built into
/// bankbench, the experiment's text, the backend and the options that change counters. Runs with
/// different fingerprints are never taken as repeats of one another.
std::string run_fingerprint(const config::experiment& e, const run_options& o);

/// Records the end of the session and prints the one summary line of `bankbench run` (on stderr,
/// also under -q): what ran, what failed, and why the exit code is what it is.
void finish_session(const global_options& g, const resume_point& start, int exit_code);

/// Prints the results table of every run begun in `start` (after a supervised session).
void print_run_tables(const global_options& g, const std::vector<std::int64_t>& run_ids);

} // namespace bb::cli
