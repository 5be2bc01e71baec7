#include "runner/session/supervisor.hpp"

#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <optional>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "runner/common/child_process.hpp"
#include "runner/common/error.hpp"
#include "runner/launch/device.hpp"
#include "runner/launch/nvml.hpp"
#include "runner/session/compile_phase.hpp"
#include "runner/session/lines_pass.hpp"
#include "runner/session/run_shares.hpp"
#include "runner/source/compile.hpp"
#include "runner/source/known_kernels.hpp"
#include "runner/store/database.hpp"
#include "runner/store/lines.hpp"

namespace bb::session {

namespace {

extern "C" void on_stop_signal(int sig) {
  int none = 0;
  g_stop_signal.compare_exchange_strong(none, sig);
  g_interrupted.store(true);
}

/// SIGINT, SIGTERM, SIGHUP and SIGQUIT set g_interrupted for as long as it lives: the configuration
/// in flight is finished and stored, then the run stops. Workers inherit the handler as they are
/// forked. No SA_RESTART: a blocking call returns, so a waiting process sees the signal at once.
class stop_signals {
public:
  stop_signals() {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    for (const int sig : k_signals) sigaction(sig, &sa, nullptr);
  }
  ~stop_signals() {
    for (const int sig : k_signals) std::signal(sig, SIG_DFL);
  }
  stop_signals(const stop_signals&) = delete;
  stop_signals& operator=(const stop_signals&) = delete;

private:
  static constexpr int k_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
};

/// A child process and this process's end of the socket between them: the child tells its
/// progress one line at a time and reads this process's answers from the same socket.
struct child {
  pid_t pid = -1;
  int fd = -1;
};

/// Writes one line; a peer that is gone is no signal (MSG_NOSIGNAL) but the end of file it reads.
void send_line(int fd, const std::string& text) {
  const std::string line = text + "\n";
  [[maybe_unused]] const auto n = send(fd, line.data(), line.size(), MSG_NOSIGNAL);
}

/// Reads one line from `fd`, waiting for it; false at the end of the file.
bool read_line(int fd, std::string& line) {
  line.clear();
  for (char c = 0;;) {
    const ssize_t n = read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    if (c == '\n') return true;
    line += c;
  }
}

/// The one fork of a run: `body` runs in a child process with its end of the socket, and what it
/// returns is the child's exit code (a bankbench error: its code, logged). The child dies with this
/// process (PR_SET_PDEATHSIG) and exits without static destructors: CUDA and CUPTI tear-down after a
/// fault can hang.
child spawn(const std::function<int(int fd)>& body) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0)
    throw api_error(std::string("socketpair failed: ") + std::strerror(errno));
  const pid_t pid = fork_flushed();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL); // this process killed with -9 takes its children along
    close(fds[0]);
    const int rc = exit_code_of([&] { return body(fds[1]); });
    spdlog::default_logger()->flush();
    std::fflush(nullptr);
    _exit(rc);
  }
  close(fds[1]);
  return {pid, fds[0]};
}

/// A worker's side of the socket: one line per event, and the session row asked of the supervisor,
/// which begins it once the first worker has its GPU (no GPU: no database file is made).
class worker_events final : public session_events {
public:
  explicit worker_events(int fd) : m_fd(fd) {}
  std::int64_t open_session(store::database&, const run_plan&, resume_point&) override {
    send_line(m_fd, "ready 0 0");
    std::string line;
    std::int64_t id = 0;
    if (!read_line(m_fd, line) || std::sscanf(line.c_str(), "session %ld", &id) != 1 || id <= 0)
      throw api_error("the supervisor did not name the session (it ended?)");
    return id;
  }
  void session_begun(std::int64_t) override {}
  void run_begun(std::size_t e, std::int64_t id) override { send("run", e, id); }
  void configuration_started(std::size_t e, int seq) override { send("start", e, seq); }
  void configuration_timing(std::size_t e, int seq) override { send("timing", e, seq); }
  void configuration_stored(std::size_t e, int seq) override { send("stored", e, seq); }
  /// Everything is stored and the worker exits with `rc`.
  void finished(int rc) { send("finished", 0, rc); }

private:
  void send(const char* what, std::size_t e, std::int64_t value) {
    send_line(m_fd, fmt::format("{} {} {}", what, e, value));
  }
  int m_fd;
};

/// A worker: narrows CUDA to its GPU, runs its share of the configurations, tells its progress.
int worker_main(int fd, const std::vector<config::experiment>& experiments, run_plan plan, resume_point start,
                bool several) {
  if (several)
    spdlog::default_logger()->set_pattern(fmt::format("bankbench: [gpu {}] {}%^%l%$: %v", plan.device,
                                                      spdlog::should_log(spdlog::level::trace) ? "%H:%M:%S.%e " : ""));
  if (!plan.model())
    if (auto entry = launch::make_only_visible(plan.device, plan.visible_devices)) { // before any CUDA call
      plan.device_alone = true;
      plan.visible_devices = std::move(entry);
    }
  worker_events events(fd);
  const int rc = exit_code_of([&] { return run_in_process(experiments, plan, start, &events); });
  spdlog::debug("worker: finished with exit code {}", rc);
  events.finished(rc); // the supervisor goes on while this process releases its GPU context
  return rc;
}

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

/// One device's share of the run and the worker that runs it now.
struct device_worker {
  run_plan plan;               ///< device, share and visible devices of its own
  resume_point start;          ///< what its workers have stored so far
  child proc;                  ///< the worker now; pid -1 between workers
  std::string buffer;          ///< what it told that is not a whole line yet
  in_flight current;           ///< what it measures now
  bool told = false;           ///< a stop signal was passed on to it
  bool timed_out = false;      ///< stopped by the supervisor at the time limit
  bool any_failure = false;    ///< a configuration was lost to a fault or a timeout
  std::optional<int> finished; ///< the exit code it told before exiting
  std::optional<int> result;   ///< this device's exit code, once no worker is left to start
  bool show = false;           ///< its runs' tables are shown
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

/// The worst of the devices' exit codes: an error (2-5) or an interruption before failures (1).
int combined(const std::vector<int>& codes) {
  int worst = 0;
  auto rank = [](int c) { return c == 0 ? 0 : c == 1 ? 1 : c == static_cast<int>(exit_code::interrupted) ? 3 : 2; };
  for (const int c : codes)
    if (rank(c) > rank(worst)) worst = c;
  return worst;
}

class supervisor {
public:
  supervisor(const std::vector<config::experiment>& experiments, const run_plan& plan, resume_point& start)
      : m_experiments(experiments), m_plan(plan), m_start(start) {
    const auto& devices = plan.devices;
    const int n = static_cast<int>(devices.size());
    if (n > 1)
      spdlog::info("{} devices ({}): configurations spread by {}", n, fmt::join(devices, ","),
                   plan.spread == config::share_unit::variant ? "variant" : "configuration");
    for (int slot = 0; slot < n; ++slot) {
      device_worker w;
      w.plan = plan;
      w.plan.device = devices[static_cast<std::size_t>(slot)];
      w.plan.devices = {w.plan.device};
      w.start = start;
      if (n > 1) {
        w.plan.share = config::then(plan.share, {slot, n, plan.spread});
        const auto kept = keep_only_share(experiments, w.plan.share, w.start);
        spdlog::info("GPU {}: share {}, {} configurations", w.plan.device, config::share_text(w.plan.share), kept);
      }
      m_workers.push_back(std::move(w));
    }
  }

  /// Runs every device's share to its end; returns the exit code.
  int run(const run_report& report) {
    for (auto& w : m_workers) start_worker(w);
    while (std::any_of(m_workers.begin(), m_workers.end(), [](const device_worker& w) { return !w.result; })) watch();
    std::vector<std::int64_t> shown;
    for (const auto& w : m_workers)
      if (w.show)
        for (const auto id : w.start.run_ids)
          if (id != 0) shown.push_back(id);
    const auto reaping = std::chrono::steady_clock::now();
    for (const pid_t pid : m_reap_later) wait_for(pid); // workers that said they finished end meanwhile
    if (!m_reap_later.empty())
      spdlog::debug("worker process(es) ended {:.0f} ms after the last one finished",
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - reaping).count());
    m_reap_later.clear();
    if ((m_plan.lines || m_plan.lines_in_files) && !m_plan.model() && !g_interrupted.load()) collect_lines();
    report(shown);
    if (m_workers.size() == 1) {
      const auto session_id = m_start.session_id;
      m_start = m_workers.front().start;
      m_start.session_id = session_id;
      return *m_workers.front().result;
    }
    std::vector<int> codes;
    for (const auto& w : m_workers) {
      codes.push_back(*w.result);
      if (*w.result <= 1 || *w.result == static_cast<int>(exit_code::interrupted))
        spdlog::info("GPU {}: ended with exit code {}", w.plan.device, *w.result);
      else
        spdlog::error("GPU {}: ended with exit code {}; its remaining configurations were not run (the other GPUs' "
                      "results are stored)",
                      w.plan.device, *w.result);
    }
    return combined(codes);
  }

private:
  void start_worker(device_worker& w) {
    w.start.session_id = m_start.session_id;
    w.buffer.clear();
    w.current = {};
    w.told = w.timed_out = false;
    w.finished.reset();
    const bool several = m_workers.size() > 1;
    w.proc = spawn([&](int fd) { return worker_main(fd, m_experiments, w.plan, w.start, several); });
  }

  [[nodiscard]] double limit_of(const device_worker& w) const {
    return m_plan.time_limit_s > 0 ? m_plan.time_limit_s : m_experiments[w.current.experiment].time_limit_s;
  }

  /// One turn of the loop: stop signals passed on, time limits, then what the workers told.
  void watch() {
    std::vector<pollfd> fds;
    std::vector<device_worker*> polled;
    for (auto& w : m_workers) {
      if (w.result) continue;
      // A signal sent to the supervisor alone (kill PID, Slurm, a closed SSH session) reaches the
      // worker too, which stores the configuration in flight, marks the run and exits.
      if (g_interrupted.load() && !w.told) {
        kill(w.proc.pid, SIGINT);
        w.told = true;
      }
      if (w.current.active) {
        const auto elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - w.current.since).count();
        if (elapsed > limit_of(w)) {
          kill(w.proc.pid, SIGKILL);
          w.timed_out = true;
          worker_ended(w);
          continue;
        }
      }
      fds.push_back({w.proc.fd, POLLIN, 0});
      polled.push_back(&w);
    }
    if (fds.empty() || poll(fds.data(), fds.size(), 500) <= 0) return;
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      device_worker& w = *polled[i];
      char chunk[512];
      const ssize_t n = read(w.proc.fd, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        worker_ended(w);
        continue;
      }
      w.buffer.append(chunk, static_cast<std::size_t>(n));
      for (std::size_t nl; (nl = w.buffer.find('\n')) != std::string::npos; w.buffer.erase(0, nl + 1))
        told(w, w.buffer.substr(0, nl));
      if (w.finished) worker_ended(w);
    }
  }

  /// One line a worker told.
  void told(device_worker& w, const std::string& text) {
    std::istringstream line(text);
    std::string what;
    std::size_t e = 0;
    std::int64_t value = 0;
    line >> what >> e >> value;
    if (what == "ready") { // its GPU is open: the session row is begun once, here
      if (m_start.session_id == 0) {
        auto db = store::database::open(m_plan.db);
        m_start.session_id = begin_session_row(db, m_plan, m_start);
      }
      w.start.session_id = m_start.session_id;
      send_line(w.proc.fd, fmt::format("session {}", m_start.session_id));
    }
    if (what == "run") w.start.run_ids[e] = value;
    if (what == "start" || what == "timing") {
      if (!w.current.active) w.current = {true, e, {}, 0, {}};
      w.current.experiment = e;
      w.current.blamed = static_cast<int>(value);
      w.current.since = std::chrono::steady_clock::now();
      if (what == "start") w.current.seqs.push_back(w.current.blamed);
    }
    if (what == "stored") {
      w.start.done[e].insert(static_cast<int>(value));
      std::erase(w.current.seqs, static_cast<int>(value));
      w.current.active = !w.current.seqs.empty();
    }
    if (what == "finished") w.finished = static_cast<int>(value);
  }

  /// The worker's socket closed, it said it finished, or it was stopped: its device's result, or a
  /// fresh worker for the rest of the share.
  void worker_ended(device_worker& w) {
    close(w.proc.fd);
    int status = 0;
    if (w.finished) // reaped at the end: releasing a GPU context as a process ends takes a moment
      m_reap_later.push_back(w.proc.pid);
    else
      status = wait_for(w.proc.pid);
    w.proc = {};
    const int code = w.finished ? *w.finished : WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    // The database refused a commit, or the run cannot go on at all: no fresh worker would do better.
    if (code == static_cast<int>(exit_code::store) || code == static_cast<int>(exit_code::usage) ||
        code == static_cast<int>(exit_code::environment)) {
      w.result = code;
      return;
    }
    if (!w.current.active && code < 0) { // died outside any configuration: nothing to skip past
      const std::string why = describe_exit(status) + " outside any configuration";
      if (m_workers.size() == 1) throw api_error(why);
      spdlog::error("GPU {}: {}", w.plan.device, why);
      w.result = static_cast<int>(exit_code::internal);
      return;
    }
    if (!w.current.active && code != k_exit_context_lost) {
      w.show = code == 0 || code == static_cast<int>(exit_code::failures) || code >= 128;
      w.result = code == 0 && w.any_failure            ? static_cast<int>(exit_code::failures)
                 : code >= 128 && g_interrupted.load() ? interrupted_exit_code()
                                                       : code;
      return;
    }
    w.any_failure = true;
    // A worker whose context broke stored the configuration that broke it; the members of its
    // group it had not stored yet were never measured and run again in the fresh worker.
    if (w.current.active && code != k_exit_context_lost) {
      const auto& e = m_experiments[w.current.experiment];
      const std::string reason = w.timed_out
                                     ? fmt::format("timeout after {:g} s (time limit); worker stopped", limit_of(w))
                                     : describe_exit(status) + " during this configuration";
      const auto& seqs = w.current.seqs;
      const bool blamed_in_flight = std::find(seqs.begin(), seqs.end(), w.current.blamed) != seqs.end();
      const int seq = blamed_in_flight ? w.current.blamed : seqs.back();
      record_lost(m_plan.db, e, w.start.run_ids[w.current.experiment], seq, reason);
      w.start.done[w.current.experiment].insert(seq);
    }
    if (g_interrupted.load()) {
      for (const auto id : w.start.run_ids)
        if (id != 0) {
          try {
            store::database::open(m_plan.db).finish_run(id, run_status::interrupted);
          } catch (const error&) {
          }
          spdlog::warn("resume run {} with: {}", id, resume_command(m_plan, id));
        }
      w.result = interrupted_exit_code();
      return;
    }
    spdlog::warn("{}starting a fresh worker for the remaining configurations",
                 m_workers.size() > 1 ? fmt::format("GPU {}: ", w.plan.device) : "");
    start_worker(w);
  }

  /// run --lines: one collecting process per selected configuration that ran to a result (CUPTI
  /// instruments one kernel per process), on the device that measured it, plan.lines_jobs at a
  /// time on each device: a collector spends most of its time starting CUDA and patching code, so
  /// several share a GPU (docs/measuring.md, "Per line").
  void collect_lines() {
    struct target {
      const device_worker* w;
      std::size_t experiment;
      int seq;
      std::string label; ///< "family/variant params", for the progress lines
    };
    std::vector<target> targets;
    {
      auto db = store::database::open(m_plan.db);
      for (const auto& w : m_workers)
        for (std::size_t i = 0; i < m_experiments.size(); ++i) {
          if (w.start.run_ids[i] == 0) continue;
          const auto configs = config::expand(m_experiments[i]);
          for (const int seq : store::measured_sequences(db, w.start.run_ids[i])) {
            const auto& cfg = configs.at(static_cast<std::size_t>(seq));
            if (w.start.done[i].count(seq) != 0 && wants_lines(m_plan, m_experiments[i], cfg))
              targets.push_back(
                  {&w, i, seq,
                   fmt::format("{}/{} {}", m_experiments[i].family, cfg.variant, config::describe_params(cfg.params))});
          }
        }
    }
    if (targets.empty()) {
      if (m_plan.lines) // an experiment whose own `lines:` selects nothing measured is not worth a word
        spdlog::warn("--lines: no measured configuration is selected{}",
                     m_plan.lines_for.empty() ? "" : " by --lines-for");
      return;
    }
    const std::size_t per_device = std::max(1U, m_plan.lines_jobs);
    spdlog::info("collecting per-line shared-memory counters of {} configuration{}, one process each, {} at a time{}",
                 targets.size(), targets.size() == 1 ? "" : "s", per_device,
                 m_workers.size() > 1 ? " on each GPU" : "");
    struct collector {
      std::size_t target;
      child proc;
      std::string said;
      std::chrono::steady_clock::time_point since;
      bool late = false;
    };
    std::vector<collector> running;
    std::size_t next = 0, done = 0;
    const auto busy_on = [&](const device_worker* w) {
      return static_cast<std::size_t>(
          std::count_if(running.begin(), running.end(), [&](const collector& c) { return targets[c.target].w == w; }));
    };
    // The next target in order, where its device has room: a later device's targets wait for the
    // earlier ones to start.
    const auto start_next = [&] {
      if (next == targets.size() || busy_on(targets[next].w) >= per_device) return false;
      const target& t = targets[next];
      const auto& e = m_experiments[t.experiment];
      const std::int64_t run_id = t.w->start.run_ids[t.experiment];
      const run_plan& plan = t.w->plan;
      const int seq = t.seq;
      running.push_back({next,
                         spawn([&](int fd) {
                           const auto lines = collect_lines_of(e, seq, run_id, plan);
                           std::uint64_t excess = 0;
                           for (const auto& r : lines.rows) excess += r.excess();
                           send_line(fd,
                                     fmt::format("{} {} {}", store::name_of(lines.status), lines.rows.size(), excess));
                           return 0;
                         }),
                         {},
                         std::chrono::steady_clock::now()});
      ++next;
      return true;
    };
    const auto finish = [&](collector& c) {
      close(c.proc.fd);
      const int status = wait_for(c.proc.pid);
      const target& t = targets[c.target];
      const auto& e = m_experiments[t.experiment];
      const std::string& label = t.label;
      const double limit = m_plan.time_limit_s > 0 ? m_plan.time_limit_s : e.time_limit_s;
      ++done;
      const std::string said = c.said.substr(0, c.said.find('\n'));
      if (said.empty()) {
        if (g_interrupted.load() && !c.late) return;
        store::line_collection lost;
        lost.status = store::lines_status::failed;
        lost.note = c.late ? fmt::format("timeout after {:g} s (time limit); collecting process stopped", limit)
                           : describe_exit(status) + " while collecting its lines";
        try {
          auto db = store::database::open(m_plan.db);
          store::add_lines(db, t.w->start.run_ids[t.experiment], t.seq, lost);
        } catch (const error& x) {
          spdlog::error("{}", x.what());
        }
        spdlog::error("[lines {}/{}] {}  {}", done, targets.size(), label, lost.note);
        return;
      }
      std::istringstream words(said);
      std::string what;
      std::size_t instructions = 0;
      std::uint64_t excess = 0;
      words >> what >> instructions >> excess;
      if (what == "ok")
        spdlog::info("[lines {}/{}] {}  {} shared-memory instructions, {} excess wavefronts", done, targets.size(),
                     label, instructions, excess);
      else
        spdlog::warn("[lines {}/{}] {}  {} (`bankbench lines` shows why)", done, targets.size(), label, what);
    };
    while (!running.empty() || (next < targets.size() && !g_interrupted.load())) {
      while (!g_interrupted.load() && start_next()) {
      }
      std::vector<pollfd> fds;
      for (const auto& c : running) fds.push_back({c.proc.fd, POLLIN, 0});
      const int ready = poll(fds.data(), fds.size(), 200);
      std::vector<std::size_t> ended;
      for (std::size_t i = 0; i < running.size(); ++i) {
        collector& c = running[i];
        if (ready > 0 && fds[i].revents != 0) {
          char chunk[256];
          const ssize_t n = read(c.proc.fd, chunk, sizeof chunk);
          if (n < 0 && errno == EINTR) continue;
          if (n > 0) {
            c.said.append(chunk, static_cast<std::size_t>(n));
            continue;
          }
          ended.push_back(i);
          continue;
        }
        const auto& e = m_experiments[targets[c.target].experiment];
        const double limit = m_plan.time_limit_s > 0 ? m_plan.time_limit_s : e.time_limit_s;
        const bool late = std::chrono::duration<double>(std::chrono::steady_clock::now() - c.since).count() > limit;
        if (late || g_interrupted.load()) {
          kill(c.proc.pid, SIGKILL);
          c.late = late;
          ended.push_back(i);
        }
      }
      for (auto it = ended.rbegin(); it != ended.rend(); ++it) {
        finish(running[*it]);
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(*it));
      }
    }
  }

  const std::vector<config::experiment>& m_experiments;
  const run_plan& m_plan;
  resume_point& m_start;
  std::vector<device_worker> m_workers;
  std::vector<pid_t> m_reap_later;
};

/// cudaGetDeviceCount in a child process, so that this one never initialises CUDA.
int probe_device_count() {
  const child c = spawn([](int fd) {
    send_line(fd, fmt::format("devices {}", launch::device_count()));
    return 0;
  });
  std::string line;
  int count = -1;
  if (!read_line(c.fd, line) || std::sscanf(line.c_str(), "devices %d", &count) != 1) count = -1;
  close(c.fd);
  wait_for(c.pid);
  if (count < 0) throw environment_error("--devices all: the CUDA devices could not be counted (see above)");
  if (count == 0) throw environment_error("--devices all: no CUDA device is visible (CUDA_VISIBLE_DEVICES?)");
  return count;
}

/// The compile phase (session/compile_phase.hpp) in a child process of its own. NVRTC initialises
/// the CUDA driver in the process that compiles (CUDA 13.0 on an H100: a process forked after one
/// nvrtcCompileProgram gets cudaErrorInitializationError from its first CUDA call), and this
/// process forks the workers. The child prints the progress and the logs and sends back each
/// kernel's outcome, which this process remembers for the workers it forks next.
session::compile_summary compile_in_child(const std::vector<config::experiment>& experiments, const run_plan& plan,
                                          const resume_point& start) {
  if (!compile_phase_needed(experiments, plan, start)) return {};
  const child c = spawn([&](int fd) {
    const compile_summary s = compile_before_gpu(experiments, plan, start);
    for (const auto& [id, o] : s.outcomes)
      send_line(fd, "kernel " + nlohmann::json{{"id", id},
                                               {"attempted", o.attempted},
                                               {"ok", o.ok},
                                               {"cache_hit", o.cache_hit},
                                               {"ms", o.ms},
                                               {"compile_ms", o.compile_ms},
                                               {"key", o.key},
                                               {"error", o.error}}
                                    .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    send_line(fd, fmt::format("summary {} {} {} {} {}", s.kernels, s.compiled, s.cache_hits, s.failed, s.wall_s));
    return 0;
  });
  compile_summary s;
  bool summarised = false;
  for (std::string line; read_line(c.fd, line);) {
    if (line.rfind("kernel ", 0) == 0) {
      const auto j = nlohmann::json::parse(line.substr(7), nullptr, false);
      if (j.is_discarded()) continue;
      source::compile_outcome o;
      o.attempted = j.value("attempted", false);
      o.ok = j.value("ok", false);
      o.cache_hit = j.value("cache_hit", false);
      o.ms = j.value("ms", 0.0);
      o.compile_ms = j.value("compile_ms", 0.0);
      o.key = j.value("key", "");
      o.error = j.value("error", "");
      source::remember(j.value("id", ""), o);
    } else if (std::sscanf(line.c_str(), "summary %zu %zu %zu %zu %lf", &s.kernels, &s.compiled, &s.cache_hits,
                           &s.failed, &s.wall_s) == 5) {
      summarised = true;
    }
  }
  close(c.fd);
  const int status = wait_for(c.pid);
  const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (!summarised && !g_interrupted.load())
    throw error(rc == 0 ? exit_code::internal : static_cast<exit_code>(rc),
                "the compile phase of the source variants ended without a result (see above)");
  return s;
}

} // namespace

std::vector<std::string> probe_archs(const std::vector<int>& devices) {
  // Where every GPU of the machine has one compute capability, NVML's answer holds whatever
  // CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER make of the ordinals, and asking it spares a
  // process that starts CUDA (1.02 to 1.04 s on a host with 4 H100s, where NVML took 46 to 70 ms).
  if (const int cc = launch::nvml::instance().common_compute_capability(); cc > 0)
    return std::vector<std::string>(devices.size(), source::arch_of(cc / 10, cc % 10));
  // A child that exits without a line (no driver, no device) leaves "" for each device: the
  // workers then say what is wrong, as they do without this probe.
  const child c = spawn([&](int fd) {
    for (const int d : devices) {
      int major = 0, minor = 0;
      if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, d) != cudaSuccess ||
          cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, d) != cudaSuccess)
        major = minor = 0;
      send_line(fd, fmt::format("cc {} {}", major, minor));
    }
    return 0;
  });
  std::vector<std::string> archs;
  std::string line;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    int major = 0, minor = 0;
    if (!read_line(c.fd, line) || std::sscanf(line.c_str(), "cc %d %d", &major, &minor) != 2) major = 0;
    archs.push_back(major > 0 ? source::arch_of(major, minor) : "");
  }
  close(c.fd);
  wait_for(c.pid);
  return archs;
}

int execute(const std::vector<config::experiment>& experiments, const run_plan& plan, resume_point& start,
            const run_report& report) {
  const stop_signals handlers;
  if (plan.model())
    compile_for_model(experiments, plan, start); // no GPU in this process: NVRTC may start CUDA here
  else
    compile_in_child(experiments, plan, start);
  if (g_interrupted.load()) {
    spdlog::warn("interrupted while compiling source variants; nothing was run");
    return interrupted_exit_code();
  }
  if (plan.in_workers()) return supervisor(experiments, plan, start).run(report);
  const int code = run_in_process(experiments, plan, start, nullptr);
  std::vector<std::int64_t> ran;
  for (const auto id : start.run_ids)
    if (id != 0) ran.push_back(id);
  report(ran);
  return code;
}

std::vector<int> devices_named(const std::string& text, backend b) {
  std::vector<int> devices;
  if (text == "all") {
    const int count = b == backend::model ? 1 : probe_device_count();
    for (int d = 0; d < count; ++d) devices.push_back(d);
    return devices;
  }
  std::set<int> seen;
  std::size_t at = 0;
  for (;;) {
    const auto comma = text.find(',', at);
    const std::string part = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    int d = -1;
    const auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), d);
    if (part.empty() || ec != std::errc() || p != part.data() + part.size() || d < 0)
      throw usage_error(fmt::format("--devices '{}': '{}' is not a device ordinal; expected all, or ordinals such as "
                                    "0,2,3 (`nvidia-smi -L` lists them)",
                                    text, part));
    if (!seen.insert(d).second)
      throw usage_error(fmt::format("--devices '{}': device {} is named twice; name each GPU once", text, d));
    devices.push_back(d);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return devices;
}

} // namespace bb::session
