#include "runner/session/supervisor.hpp"

#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <optional>
#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "runner/common/child_process.hpp"
#include "runner/common/error.hpp"
#include "runner/launch/device.hpp"
#include "runner/store/database.hpp"

namespace bb::session {

namespace {

/// Worker side: one line per event on the pipe to the supervisor.
class pipe_events final : public session_events {
public:
  explicit pipe_events(int fd) : m_fd(fd) {}
  void session_begun(std::int64_t id) override { send("session", 0, id); }
  void run_begun(std::size_t e, std::int64_t id) override { send("run", e, id); }
  void configuration_started(std::size_t e, int seq) override { send("start", e, seq); }
  void configuration_timing(std::size_t e, int seq) override { send("timing", e, seq); }
  void configuration_stored(std::size_t e, int seq) override { send("stored", e, seq); }
  /// Everything is stored and the worker exits with `rc`.
  void finished(int rc) { send("finished", 0, rc); }

private:
  void send(const char* what, std::size_t e, std::int64_t value) {
    const std::string line = std::string(what) + " " + std::to_string(e) + " " + std::to_string(value) + "\n";
    [[maybe_unused]] const auto n = write(m_fd, line.data(), line.size()); // the supervisor sees EOF if this fails
  }
  int m_fd;
};

/// The configurations a worker has started and not yet stored. The worker measures them in groups
/// (launch::group): each is set up and verified as it starts, the group's counter passes follow,
/// then each member's timing pass. The time limit runs from the newest start or timing pass, and a
/// crash or timeout is blamed on the configuration that began last.
struct in_flight {
  bool active = false;
  std::size_t experiment = 0;
  std::vector<int> seqs; ///< started and not stored, oldest first
  int blamed = 0;        ///< the one whose start or timing pass began last
  std::chrono::steady_clock::time_point since;
};

/// Stores a configuration the worker could not finish, as failed with `reason`.
void record_lost(const std::string& db_path, const config::experiment& e, std::int64_t run_id, int seq,
                 const std::string& reason) {
  const auto configs = config::expand(e);
  const auto& cfg = configs.at(static_cast<std::size_t>(seq));
  store::configuration_record rec;
  rec.seq = seq;
  rec.variant = e.family + "/" + cfg.variant;
  rec.family = e.family;
  rec.params_json = cfg.params.dump();
  rec.status = config_status::failed;
  rec.reason = reason;
  rec.finished_at = store::utc_now_iso8601();
  auto db = store::database::open(db_path);
  db.add_configuration(run_id, rec);
  spdlog::error("[{}/{}] {}/{} {}  failed: {}", seq + 1, configs.size(), e.family, cfg.variant,
                config::describe_params(cfg.params), reason);
}

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) return std::string("worker killed by signal ") + strsignal(WTERMSIG(status));
  return "worker exited with code " + std::to_string(WEXITSTATUS(status));
}

[[noreturn]] void worker_main(int fd, const std::vector<config::experiment>& experiments, const run_plan& plan,
                              resume_point start) {
  prctl(PR_SET_PDEATHSIG, SIGKILL); // a supervisor killed with -9 takes its worker along
  pipe_events events(fd);
  int rc = 0;
  try {
    run_plan mine = plan;
    mine.device_alone = launch::make_only_visible(plan.device); // this process's first CUDA use is ahead
    rc = run_in_process(experiments, mine, start, &events, false);
  } catch (const error& e) {
    spdlog::error("{}", e.what());
    rc = static_cast<int>(e.code());
  } catch (const std::exception& e) {
    spdlog::error("internal error: {}", e.what());
    rc = static_cast<int>(exit_code::internal);
  }
  spdlog::debug("worker: finished with exit code {}", rc);
  events.finished(rc); // the supervisor goes on while this process releases its GPU context
  spdlog::default_logger()->flush();
  std::fflush(nullptr);
  _exit(rc); // no static destructors: CUDA and CUPTI tear-down after a fault can hang
}

} // namespace

int supervise(const std::vector<config::experiment>& experiments, const run_plan& plan, resume_point& start) {
  bool any_failure = false;
  const stop_signals handlers; // SIGINT, SIGTERM, SIGHUP, SIGQUIT: the worker is told and waited for
  for (;;) {
    int fds[2];
    if (pipe(fds) != 0) throw api_error(std::string("pipe failed: ") + std::strerror(errno));
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0) throw api_error(std::string("fork failed: ") + std::strerror(errno));
    if (pid == 0) {
      close(fds[0]);
      worker_main(fds[1], experiments, plan, start);
    }
    close(fds[1]);

    in_flight current;
    std::string buffer;
    bool timed_out = false;
    bool told = false;
    std::optional<int> finished; // the worker's exit code, told before it exits
    while (!finished) {
      // A signal sent to the supervisor alone (kill PID, Slurm, a closed SSH session) reaches the
      // worker too, which stores the configuration in flight, marks the run and exits.
      if (g_interrupted.load() && !told) {
        kill(pid, SIGINT);
        told = true;
      }
      pollfd p{fds[0], POLLIN, 0};
      int wait_ms = 500;
      if (current.active) {
        const double limit = plan.time_limit_s > 0 ? plan.time_limit_s : experiments[current.experiment].time_limit_s;
        const auto elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - current.since).count();
        if (elapsed > limit) {
          kill(pid, SIGKILL);
          timed_out = true;
          break;
        }
      }
      if (poll(&p, 1, wait_ms) <= 0) continue;
      char chunk[512];
      const ssize_t n = read(fds[0], chunk, sizeof chunk);
      if (n <= 0) break;
      buffer.append(chunk, static_cast<std::size_t>(n));
      for (std::size_t nl; (nl = buffer.find('\n')) != std::string::npos; buffer.erase(0, nl + 1)) {
        std::istringstream line(buffer.substr(0, nl));
        std::string what;
        std::size_t e = 0;
        std::int64_t value = 0;
        line >> what >> e >> value;
        if (what == "session") start.session_id = value;
        if (what == "run") start.run_ids[e] = value;
        if (what == "start" || what == "timing") {
          if (!current.active) current = {true, e, {}, 0, {}};
          current.experiment = e;
          current.blamed = static_cast<int>(value);
          current.since = std::chrono::steady_clock::now();
          if (what == "start") current.seqs.push_back(current.blamed);
        }
        if (what == "stored") {
          start.done[e].insert(static_cast<int>(value));
          std::erase(current.seqs, static_cast<int>(value));
          current.active = !current.seqs.empty();
        }
        if (what == "finished") finished = static_cast<int>(value);
      }
    }
    close(fds[0]);
    // A worker that said it finished is reaped last, as this iteration ends: releasing a GPU
    // context as a process ends takes a moment, and the tables need nothing from it.
    struct reap_at_end {
      pid_t pid;
      ~reap_at_end() {
        if (pid > 0) wait_for(pid);
      }
    } const later{finished ? pid : 0};
    const int status = finished ? 0 : wait_for(pid);

    const int code = finished ? *finished : WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    // The database refused a commit, or the run cannot go on at all: no fresh worker would do better.
    if (code == static_cast<int>(exit_code::store) || code == static_cast<int>(exit_code::usage) ||
        code == static_cast<int>(exit_code::environment))
      return code;
    if (!current.active && code < 0) { // died outside any configuration: nothing to skip past
      throw api_error(describe_exit(status) + " outside any configuration");
    }
    if (!current.active && code != k_exit_context_lost) {
      if (code == 0 && any_failure) return static_cast<int>(exit_code::failures);
      if (code == 0 || code == static_cast<int>(exit_code::failures) || code >= 128)
        print_run_tables(plan.db, start.run_ids);
      return code >= 128 && g_interrupted.load() ? interrupted_exit_code() : code;
    }
    any_failure = true;
    // A worker whose context broke stored the configuration that broke it; the members of its
    // group it had not stored yet were never measured and run again in the fresh worker.
    if (current.active && code != k_exit_context_lost) {
      const auto& e = experiments[current.experiment];
      const double limit = plan.time_limit_s > 0 ? plan.time_limit_s : e.time_limit_s;
      const std::string reason = timed_out
                                     ? "timeout after " + fmt::format("{:g}", limit) + " s (time limit); worker stopped"
                                     : describe_exit(status) + " during this configuration";
      const bool blamed_in_flight = std::find(current.seqs.begin(), current.seqs.end(), current.blamed) !=
                                    current.seqs.end();
      const int seq = blamed_in_flight ? current.blamed : current.seqs.back();
      record_lost(plan.db, e, start.run_ids[current.experiment], seq, reason);
      start.done[current.experiment].insert(seq);
    }
    if (g_interrupted.load()) {
      for (const auto id : start.run_ids)
        if (id != 0) {
          try {
            store::database::open(plan.db).finish_run(id, run_status::interrupted);
          } catch (const error&) {
          }
          spdlog::warn("resume run {} with: {}", id, resume_command(plan, id));
        }
      return interrupted_exit_code();
    }
    spdlog::warn("starting a fresh worker for the remaining configurations");
  }
}

} // namespace bb::session
