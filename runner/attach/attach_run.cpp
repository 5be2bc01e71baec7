#include "runner/attach/attach_run.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "runner/attach/filter.hpp"
#include "runner/attach/protocol.hpp"
#include "runner/common/error.hpp"
#include "runner/common/host_info.hpp"
#include "runner/common/metrics.hpp"
#include "runner/common/path_text.hpp"
#include "runner/common/sha256.hpp"
#include "runner/launch/nvml.hpp"
#include "runner/store/database.hpp"
#include "runner/store/samples.hpp"

namespace bb::build {
extern const char sources_sha256[];
}

namespace bb::attach {

namespace {

using json = nlohmann::json;
using clock_type = std::chrono::steady_clock;

std::atomic<int> g_signal{0};

/// `m[key]`, or null where `m` has no such member.
const json& field(const json& m, const char* key) {
  static const json none;
  const auto it = m.find(key);
  return it == m.end() ? none : *it;
}

void on_attach_signal(int sig) { g_signal = sig; }

std::string base_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string shell_line(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) {
    if (!out.empty()) out += ' ';
    out += shell_word(w);
  }
  return out;
}

/// The program's path as execvp would find it; "" when it cannot be found or run.
std::string find_program(const std::string& name, int& why) {
  why = ENOENT;
  const auto runnable = [&](const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
      why = errno;
      return false;
    }
    if (S_ISDIR(st.st_mode)) {
      why = EISDIR;
      return false;
    }
    if (::access(path.c_str(), X_OK) != 0) {
      why = EACCES;
      return false;
    }
    return true;
  };
  if (name.find('/') != std::string::npos) return runnable(name) ? name : "";
  const char* path_env = std::getenv("PATH");
  std::stringstream dirs(path_env != nullptr ? path_env : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (runnable(candidate)) return candidate;
    if (why != ENOENT) return ""; // there, but not runnable: say so rather than look further
  }
  why = ENOENT;
  return "";
}

/// Every process below `root`, from /proc.
std::vector<pid_t> descendants(pid_t root) {
  std::map<pid_t, std::vector<pid_t>> children;
  if (DIR* d = ::opendir("/proc")) {
    while (const dirent* e = ::readdir(d)) {
      const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
      if (pid <= 0) continue;
      std::ifstream stat("/proc/" + std::string(e->d_name) + "/stat");
      std::string text;
      std::getline(stat, text);
      const auto close = text.rfind(')');
      if (close == std::string::npos) continue;
      std::istringstream rest(text.substr(close + 2));
      char state = 0;
      pid_t parent = 0;
      rest >> state >> parent;
      children[parent].push_back(pid);
    }
    ::closedir(d);
  }
  std::vector<pid_t> out, todo{root};
  while (!todo.empty()) {
    const pid_t p = todo.back();
    todo.pop_back();
    for (const pid_t c : children[p]) {
      out.push_back(c);
      todo.push_back(c);
    }
  }
  return out;
}

// The program first, then what it started (listed before): a shell whose children were stopped
// first went on to its next command before its own signal was taken, and exited 0.
void signal_tree(pid_t root, int sig) {
  const auto below = descendants(root);
  ::kill(root, sig);
  for (const pid_t p : below) ::kill(p, sig);
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

/// "32x8x1".
std::string dims(const std::vector<unsigned>& v) {
  std::string out;
  for (const unsigned x : v) {
    if (!out.empty()) out += 'x';
    out += std::to_string(x);
  }
  return out;
}

/// A private folder for the socket, removed at the end.
class socket_folder {
public:
  socket_folder() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/bankbench-attach-XXXXXX";
    if (pattern.size() > 80) pattern = "/tmp/bankbench-attach-XXXXXX"; // a socket path has about 107 bytes
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()) == nullptr)
      throw environment_error("cannot make a folder for bankbench's socket under " + shown_path(pattern) + ": " +
                              std::strerror(errno) + "; set TMPDIR to a writable folder");
    m_dir = buf.data();
    m_path = m_dir + "/socket";
  }
  ~socket_folder() {
    ::unlink(m_path.c_str());
    ::rmdir(m_dir.c_str());
  }
  socket_folder(const socket_folder&) = delete;
  socket_folder& operator=(const socket_folder&) = delete;
  [[nodiscard]] const std::string& path() const { return m_path; }

private:
  std::string m_dir, m_path;
};

int listen_on(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw api_error(std::string("socket(): ") + std::strerror(errno));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), std::min(path.size() + 1, sizeof addr.sun_path - 1));
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 64) != 0) {
    const int e = errno;
    ::close(fd);
    throw environment_error("cannot listen on " + shown_path(path) + ": " + std::strerror(e));
  }
  return fd;
}

/// What the program's processes said, and what became of it in the database.
class collector {
public:
  collector(const attach_request& r, store::database& db, std::string run_text)
      : m_request(r), m_db(db), m_text(std::move(run_text)), m_quota(r.launch_skip, r.launch_count) {}

  struct client {
    std::unique_ptr<channel> link;
    pid_t pid = 0;
    std::string process; ///< "" for the program's first process
    bool followed = true;
  };

  /// One message. A database failure stops the storing, not the program: later launches are no
  /// longer granted, and attach exits with the store's code once the program ends.
  void handle(client& c, const json& m, pid_t root) {
    try {
      dispatch(c, m, root);
    } catch (const store_error& e) {
      if (!m_store_failed) spdlog::error("{}; the program runs on, nothing more is stored", e.what());
      m_store_failed = true;
      if (m_fatal.empty()) {
        m_fatal = e.what();
        m_fatal_code = exit_code::store;
      }
    }
  }

  void dispatch(client& c, const json& m, pid_t root) {
    spdlog::trace("process {}: {}", c.pid, m.dump());
    const std::string type = m.value("type", "");
    if (type == "hello") {
      c.pid = m.value("pid", 0);
      c.followed = m.value("followed", true);
      ++m_processes;
      if (!c.followed) ++m_not_followed;
      if (c.pid != root) {
        const std::string rank = m.value("rank", "");
        c.process = rank.empty() ? std::to_string(++m_other_processes) : "rank " + rank;
      }
    } else if (type == "ask") {
      if (!m_fatal.empty()) { // a store failure is one too
        c.link->send({{"profile", false}, {"more", false}});
        return;
      }
      const auto a = m_quota.ask();
      c.link->send({{"profile", a.profile}, {"more", a.more}});
    } else if (type == "device") {
      on_device(m);
    } else if (type == "launch" || type == "failed") {
      on_launch(c, m, type == "failed");
    } else if (type == "absent") {
      spdlog::warn("this GPU has no counter {}: its values are left out", field(m, "metrics").dump());
    } else if (type == "error") {
      const std::string kind = m.value("kind", "internal");
      const std::string text = m.value("message", "");
      spdlog::error("process {}: {}", c.pid, text);
      if (m_fatal.empty()) {
        m_fatal = text;
        m_fatal_code = kind == "environment" ? exit_code::environment
                       : kind == "usage"     ? exit_code::usage
                                             : exit_code::internal;
      }
    } else if (type == "summary") {
      for (const auto& [symbol, n] : field(m, "launches").items()) m_seen[symbol] += n.get<std::uint64_t>();
      m_graph_launches += m.value("graph_launches", std::uint64_t{0});
      m_captured += m.value("captured", std::uint64_t{0});
      ++m_summaries;
    } else {
      spdlog::warn("process {} sent what bankbench does not know: {}", c.pid, m.dump().substr(0, 200));
    }
  }

  void finish(run_status status, std::optional<int> program_exit, const std::string& note) {
    if (m_run_id == 0 || m_store_failed) return;
    try {
      m_db.finish_attach(m_run_id, status, program_exit, note);
    } catch (const store_error& e) {
      spdlog::error("{}", e.what());
      if (m_fatal.empty()) {
        m_fatal = e.what();
        m_fatal_code = exit_code::store;
      }
    }
  }

  [[nodiscard]] std::int64_t run_id() const { return m_run_id; }
  [[nodiscard]] std::size_t profiled() const { return m_profiled; }
  [[nodiscard]] std::size_t failed() const { return m_failed; }
  [[nodiscard]] const std::string& fatal() const { return m_fatal; }
  [[nodiscard]] exit_code fatal_code() const { return m_fatal_code; }
  [[nodiscard]] const std::map<std::string, std::uint64_t>& seen() const { return m_seen; }
  [[nodiscard]] std::uint64_t graph_launches() const { return m_graph_launches; }
  [[nodiscard]] std::uint64_t captured() const { return m_captured; }
  [[nodiscard]] int processes() const { return m_processes; }
  [[nodiscard]] int not_followed() const { return m_not_followed; }
  [[nodiscard]] int summaries() const { return m_summaries; }

private:
  void on_device(const json& m) {
    spdlog::debug("profiler ready on device {} in {:.1f} ms ({} pass(es); host set-up {:.1f} ms beside the program, "
                  "{:.1f} ms of it waited for)",
                  m.value("ordinal", 0), m.value("setup_ms", 0.0), m.value("passes", 0), m.value("warm_up_ms", 0.0),
                  m.value("warm_up_wait_ms", 0.0));
    if (m_run_id != 0) {
      if (m_devices.insert(m.value("uuid", "")).second && m_devices.size() == 2)
        spdlog::warn("the program profiles on more than one GPU; the run names the first ({}), each launch its own "
                     "device number",
                     m_gpu_name);
      return;
    }
    store::gpu_record gpu;
    gpu.uuid = m.value("uuid", "");
    gpu.name = m.value("name", "");
    gpu.chip = m.value("chip", "");
    gpu.cc_major = m.value("cc_major", 0);
    gpu.cc_minor = m.value("cc_minor", 0);
    gpu.sm_count = m.value("sm_count", 0);
    gpu.memory_bytes = m.value("memory_bytes", std::uint64_t{0});
    gpu.l2_bytes = m.value("l2_bytes", std::uint64_t{0});
    gpu.sm_clock_max_mhz = m.value("sm_clock_max_mhz", 0);
    gpu.mem_clock_max_mhz = m.value("mem_clock_max_mhz", 0);
    gpu.cuda_driver_version = m.value("cuda_driver_version", 0);
    gpu.driver_version = launch::nvml::instance().driver_version();
    m_devices.insert(gpu.uuid);
    m_gpu_name = gpu.name;

    store::run_record run;
    run.started_at = store::utc_now_iso8601();
    run.host = host_name();
    std::error_code ec;
    run.working_directory = std::filesystem::current_path(ec).string();
    const auto git = git_state_of(run.working_directory);
    run.git_commit = git.commit;
    run.git_dirty = git.dirty;
    run.bankbench_version = BB_VERSION;
    run.experiment_name = m_request.name;
    run.experiment_path = shell_line(m_request.command);
    run.experiment_text = m_text;
    run.experiment_sha256 = sha256_hex(m_text);
    run.command_line = m_request.command_line;
    run.metric_set = m_request.metric_set;
    run.metrics = m_request.metrics;
    run.pid = ::getpid();
    run.sources_sha256 = build::sources_sha256;
    run.fingerprint = sha256_hex("attach\n" + m_text);
    if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) run.cuda_visible_devices = v;
    if (const char* v = std::getenv("SLURM_JOB_ID")) run.slurm_job_id = v;
    run.kind = "attach";
    m_run_id = m_db.begin_run(m_db.upsert_gpu(gpu), run);
    spdlog::info("attach run {} on {} ({}), stored in {}", m_run_id, gpu.name, gpu.uuid, shown_path(m_db.path()));
  }

  void on_launch(const client& c, const json& m, bool failed) {
    const std::string symbol = m.value("kernel", "");
    const std::string demangled = demangle(symbol);
    const std::uint64_t ordinal = m.value("ordinal", std::uint64_t{0});
    if (m_run_id == 0) { // failed before the GPU was described: nothing to store it under
      ++m_failed;
      spdlog::error("{} launch {}: {}", base_name(demangled), ordinal, m.value("message", ""));
      return;
    }
    store::configuration_record rec;
    rec.seq = m_seq++;
    rec.variant = base_name(demangled);
    rec.family = "attach";
    const auto shape = [&](const char* key) {
      std::vector<unsigned> v;
      for (const auto& x : field(m, key)) v.push_back(x.get<unsigned>());
      return v;
    };
    rec.params_json = params_of(shape("grid"), shape("block"), m.value("smem", std::uint64_t{0}), ordinal,
                                m.value("device", 0), c.process, shape("cluster"));
    rec.started_at = rec.finished_at = store::utc_now_iso8601();
    rec.smem_access_bytes = 4; // unknown: every excess metric, which needs the width, is left out below
    if (failed) {
      rec.status = config_status::failed;
      rec.reason = m.value("message", "profiling failed");
      ++m_failed;
      spdlog::error("{} launch {}: {}", rec.variant, ordinal, rec.reason);
    } else {
      store::launch_record launch;
      std::map<std::string, double> raw;
      for (const auto& [name, v] : field(m, "values").items())
        if (v.is_number() && std::isfinite(v.get<double>())) raw[name] = v.get<double>();
      for (const auto& [name, v] : raw)
        launch.values.push_back({name, name == metrics::k_gpu_time ? "nsecond" : "", v, false});
      const auto derived = metrics::derive(raw, rec.smem_access_bytes);
      for (const auto& [name, v] : derived) {
        if (name.find("excess") != std::string::npos || !std::isfinite(v)) continue;
        const auto* d = metrics::find_metric(name);
        launch.values.push_back({name, d != nullptr ? d->unit : "", v, true});
      }
      rec.launches.push_back(std::move(launch));
      if (m.value("ranges", 1) != 1)
        rec.reason = fmt::format("{} ranges were profiled around the launch; the first is kept", m.value("ranges", 0));
      ++m_profiled;
      report(rec, derived, shape("grid"), shape("block"), m);
      spdlog::debug("  where the time went: {}", m.value("breakdown", ""));
    }
    m_db.add_configuration(m_run_id, rec);
  }

  void report(const store::configuration_record& rec, const std::map<std::string, double>& derived,
              const std::vector<unsigned>& grid, const std::vector<unsigned>& block, const json& m) {
    const auto per_request = [&](const char* name) {
      const auto it = derived.find(name);
      return it == derived.end() ? std::string("-") : fmt::format("{:.2f}", it->second);
    };
    spdlog::info("[{}] {} launch {} grid {} block {}: load {} wf/req, store {} wf/req ({:.1f} ms)", m_profiled,
                 rec.variant, m.value("ordinal", 0), dims(grid), dims(block),
                 per_request("load_wavefronts_per_request"), per_request("store_wavefronts_per_request"),
                 m.value("profile_ms", 0.0));
  }

  const attach_request& m_request;
  store::database& m_db;
  std::string m_text;
  launch_quota m_quota;
  std::int64_t m_run_id = 0;
  int m_seq = 0;
  std::size_t m_profiled = 0, m_failed = 0;
  std::set<std::string> m_devices;
  std::string m_gpu_name;
  std::string m_fatal;
  exit_code m_fatal_code = exit_code::internal;
  bool m_store_failed = false;
  std::map<std::string, std::uint64_t> m_seen;
  std::uint64_t m_graph_launches = 0, m_captured = 0;
  int m_processes = 0, m_not_followed = 0, m_other_processes = 0, m_summaries = 0;
};

/// What the program was launched with besides our variables.
std::vector<std::string> program_environment(const attach_request& r, const std::string& socket,
                                             const std::string& library) {
  settings s;
  s.metrics = r.metrics;
  s.kernel_regex = r.kernel_regex;
  s.nvtx_include = r.nvtx_include;
  s.application_only = r.application_only;
  s.flush_l2 = r.flush_l2;
  std::vector<std::string> env = {"CUDA_INJECTION64_PATH=" + library, std::string(k_env_socket) + "=" + socket,
                                  std::string(k_env_settings) + "=" + s.to_json()};
  // NVTX reaches CUPTI only where NVTX is told to load it: the library hands NVTX on to the CUPTI
  // the program has loaded.
  if (!r.nvtx_include.empty()) env.push_back("NVTX_INJECTION64_PATH=" + library);
  return env;
}

std::string describe_seen(const std::map<std::string, std::uint64_t>& seen) {
  std::vector<std::pair<std::uint64_t, std::string>> top;
  std::uint64_t total = 0;
  for (const auto& [symbol, n] : seen) {
    top.emplace_back(n, base_name(demangle(symbol)));
    total += n;
  }
  std::sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string out = fmt::format("{} launch(es) of {} kernel(s)", total, seen.size());
  for (std::size_t i = 0; i < top.size() && i < 8; ++i)
    out += fmt::format("{}{} ({})", i == 0 ? ": " : ", ", top[i].second, top[i].first);
  if (top.size() > 8) out += ", ...";
  return out;
}

} // namespace

std::string default_name(const std::vector<std::string>& command) {
  if (command.empty()) return "attach";
  const std::string program = base_of(command.front());
  const bool interpreter = program.rfind("python", 0) == 0 || program == "torchrun" || program == "bash" ||
                           program == "sh" || program == "uv" || program == "pytest";
  if (!interpreter) return program;
  const auto ends_with = [](const std::string& s, const char* tail) {
    const std::string t = tail;
    return s.size() > t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
  };
  for (std::size_t i = 1; i < command.size(); ++i) {
    const std::string& a = command[i];
    if (a == "-m" && i + 1 < command.size()) return command[i + 1];
    if (a == "-c") return program;
    if (ends_with(a, ".py") || ends_with(a, ".sh")) return base_of(a);
  }
  for (std::size_t i = 1; i < command.size(); ++i) // an option's value may come first: a last resort
    if (!command[i].empty() && command[i][0] != '-') return base_of(command[i]);
  return program;
}

std::string params_of(const std::vector<unsigned>& grid, const std::vector<unsigned>& block, std::uint64_t smem,
                      std::uint64_t ordinal, int device, const std::string& process,
                      const std::vector<unsigned>& cluster) {
  json p = {{"grid", dims(grid)}, {"block", dims(block)}, {"smem", smem}, {"launch", ordinal}};
  if (!cluster.empty()) p["cluster"] = dims(cluster);
  if (device != 0) p["device"] = device;
  if (!process.empty()) p["process"] = process;
  return p.dump();
}

std::string inject_library() {
  if (const char* given = std::getenv("BANKBENCH_INJECT_LIBRARY"); given != nullptr && *given != '\0') {
    if (::access(given, R_OK) != 0)
      throw environment_error("BANKBENCH_INJECT_LIBRARY names " + shown_path(given) + ", which cannot be read (" +
                              std::strerror(errno) + ")");
    return given;
  }
  char self[4096];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  const std::string exe = n > 0 ? std::string(self, static_cast<std::size_t>(n)) : "";
  const std::string dir = exe.substr(0, exe.find_last_of('/') + 1);
  for (const std::string& candidate : {dir + "libbankbench-inject.so", dir + BB_INJECT_INSTALLED})
    if (::access(candidate.c_str(), R_OK) == 0) return candidate;
  throw environment_error("the library `attach` injects, libbankbench-inject.so, is not beside " + shown_path(exe) +
                          "; build it (`cmake --build build/release --target bankbench_inject`) or name it in "
                          "BANKBENCH_INJECT_LIBRARY");
}

int attach(const attach_request& request) {
  attach_request r = request;
  if (r.command.empty())
    throw usage_error("attach needs a program to run: bankbench attach [OPTIONS] -- PROGRAM [ARGS]");
  if (r.name.empty()) r.name = default_name(r.command);
  for (const auto& rule : r.nvtx_include) nvtx_rule::parse(rule); // refused now, in bankbench's words
  const kernel_filter check_regex(r.kernel_regex);
  int why = 0;
  const std::string program = find_program(r.command.front(), why);
  if (program.empty())
    throw usage_error("cannot start " + shown_path(r.command.front()) + ": " +
                      (why == ENOENT && r.command.front().find('/') == std::string::npos
                           ? std::string("no such program on PATH")
                           : std::string(std::strerror(why))));
  const std::string library = inject_library();

  store::database::check_persistent(r.db_path);
  auto db = store::database::open(r.db_path);

  json settings_text = {{"command", r.command},
                        {"kernel_name", r.kernel_regex},
                        {"nvtx_include", r.nvtx_include},
                        {"launch_skip", r.launch_skip},
                        {"launch_count", r.launch_count},
                        {"target_processes", r.application_only ? "application-only" : "all"},
                        {"cache_control", r.flush_l2 ? "all" : "none"},
                        {"metrics", r.metrics}};
  collector col(r, db, settings_text.dump(2));

  const socket_folder folder;
  const int listener = listen_on(folder.path());
  const auto extra_env = program_environment(r, folder.path(), library);

  struct sigaction sa {};
  sa.sa_handler = on_attach_signal;
  sigemptyset(&sa.sa_mask);
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);

  int exec_error[2];
  if (::pipe2(exec_error, O_CLOEXEC) != 0) throw api_error(std::string("pipe2(): ") + std::strerror(errno));
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child < 0) throw environment_error(std::string("cannot start the program: fork(): ") + std::strerror(errno));
  if (child == 0) {
    ::close(exec_error[0]);
    for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGXFSZ}) ::signal(sig, SIG_DFL);
    for (const auto& kv : extra_env) ::putenv(const_cast<char*>(kv.c_str()));
    const std::string root = std::string(k_env_root_pid) + "=" + std::to_string(::getpid());
    ::putenv(const_cast<char*>(root.c_str()));
    std::vector<char*> argv;
    for (const auto& a : r.command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(program.c_str(), argv.data());
    const int e = errno;
    [[maybe_unused]] const auto written = ::write(exec_error[1], &e, sizeof e);
    ::_exit(127);
  }
  ::close(exec_error[1]);
  int exec_errno = 0;
  const bool exec_failed = ::read(exec_error[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno;
  ::close(exec_error[0]);
  if (exec_failed) {
    ::waitpid(child, nullptr, 0);
    ::close(listener);
    throw usage_error("cannot start " + shown_path(program) + ": " + std::strerror(exec_errno));
  }
  spdlog::debug("started {} (pid {}) with {}", shell_line(r.command), child, library);

  std::vector<collector::client> clients;
  const auto started = clock_type::now();
  std::optional<int> wait_status;
  std::optional<clock_type::time_point> exited_at;
  clock_type::time_point terminated_at{};
  bool terminating = false;
  bool timed_out = false, forwarded = false;
  constexpr auto k_grace = std::chrono::seconds(5); // for processes the program left behind to say their last

  for (;;) {
    if (!wait_status) {
      int st = 0;
      const pid_t got = ::waitpid(child, &st, WNOHANG);
      if (got == child) {
        wait_status = st;
        exited_at = clock_type::now();
      }
    }
    if (wait_status && clients.empty()) break;
    if (exited_at && clock_type::now() - *exited_at > k_grace) {
      spdlog::warn("{} process(es) of the program still connected {} s after it exited; not waited for", clients.size(),
                   k_grace.count());
      break;
    }
    if (!wait_status) {
      const int sig = g_signal.exchange(0);
      if (sig != 0 && !forwarded) {
        // The terminal's Ctrl-C reaches the program itself; a signal sent to bankbench alone is passed on.
        if (sig != SIGINT) signal_tree(child, sig);
        forwarded = true;
        spdlog::warn("{}: waiting for the program to stop", signal_name(sig));
      }
      if (r.time_limit_s > 0 && !timed_out &&
          std::chrono::duration<double>(clock_type::now() - started).count() > r.time_limit_s) {
        timed_out = true;
        terminated_at = clock_type::now();
        terminating = true;
        spdlog::error("the program ran past --time-limit {} s: stopping it (SIGTERM, then SIGKILL after 5 s)",
                      r.time_limit_s);
        signal_tree(child, SIGTERM);
      }
      if (terminating && clock_type::now() - terminated_at > std::chrono::seconds(5)) {
        signal_tree(child, SIGKILL);
        terminating = false;
      }
    }

    std::vector<pollfd> fds{{listener, POLLIN, 0}};
    for (const auto& c : clients) fds.push_back({c.link->fd(), POLLIN, 0});
    const int ready = ::poll(fds.data(), fds.size(), 50);
    if (ready <= 0) continue;
    if ((fds[0].revents & POLLIN) != 0) {
      const int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd >= 0) clients.push_back({std::make_unique<channel>(fd)});
    }
    for (std::size_t i = fds.size(); i-- > 1;) {
      if (fds[i].revents == 0) continue;
      auto& c = clients[i - 1];
      const bool open = c.link->fill();
      while (auto message = c.link->next()) {
        if (!message->is_object()) {
          spdlog::warn("process {} sent a line that is not JSON; ignored", c.pid);
          continue;
        }
        col.handle(c, *message, child);
      }
      if (!open) clients.erase(clients.begin() + static_cast<std::ptrdiff_t>(i - 1));
    }
  }
  ::close(listener);
  clients.clear();

  // How the program ended.
  std::optional<int> program_exit;
  std::string note;
  run_status status = run_status::completed;
  if (wait_status) {
    const int st = *wait_status;
    if (WIFEXITED(st)) {
      program_exit = WEXITSTATUS(st);
      if (*program_exit != 0) {
        status = run_status::failed;
        note = fmt::format("the program exited with code {}", *program_exit);
      }
    } else if (WIFSIGNALED(st)) {
      const int sig = WTERMSIG(st);
      program_exit = 128 + sig;
      const bool asked_to_stop = sig == SIGINT || sig == SIGTERM || sig == SIGHUP || timed_out;
      status = asked_to_stop ? run_status::interrupted : run_status::failed;
      note = fmt::format("the program was {} by {}", asked_to_stop ? "stopped" : "killed", signal_name(sig));
    }
  }
  if (timed_out) note = fmt::format("stopped at the time limit ({} s); {}", r.time_limit_s, note);
  if (!col.fatal().empty() && note.empty()) note = col.fatal();
  if (col.fatal().empty() && col.profiled() == 0 && col.failed() == 0) {
    if (note.empty()) note = "no kernel launch was profiled";
  }
  if (col.graph_launches() > 0 || col.captured() > 0) {
    const std::string graphs = fmt::format("{} CUDA graph launch(es) not profiled ({} kernel launch(es) captured into "
                                           "graphs): kernels inside CUDA graphs are not counted",
                                           col.graph_launches(), col.captured());
    spdlog::warn("{} (run the program with graphs off, e.g. torch.compile without mode=\"reduce-overhead\")", graphs);
    note += (note.empty() ? "" : "; ") + graphs;
  }
  col.finish(status, program_exit, note);

  const std::string where = col.run_id() != 0 ? fmt::format("attach run {}", col.run_id()) : std::string("attach");
  if (col.processes() > 1 || col.not_followed() > 0)
    spdlog::info("{} process(es) of the program started CUDA, {} followed", col.processes(),
                 col.processes() - col.not_followed());
  if (col.profiled() > 0 || col.failed() > 0)
    spdlog::info("{}: {} launch(es) profiled, {} failed", where, col.profiled(), col.failed());

  if (!col.fatal().empty()) return static_cast<int>(col.fatal_code());
  if (program_exit && *program_exit != 0) {
    spdlog::error("{}: {}", where, note);
    return *program_exit;
  }
  if (col.profiled() == 0 && col.failed() == 0) {
    std::string what = col.processes() == 0   ? "the program never initialised CUDA"
                       : col.summaries() == 0 ? "the program ended before saying what it launched"
                                              : "it launched " + describe_seen(col.seen());
    std::string filters;
    if (!r.kernel_regex.empty()) filters += " --kernel-name '" + r.kernel_regex + "'";
    for (const auto& n : r.nvtx_include) filters += " --nvtx-include '" + n + "'";
    if (r.launch_skip > 0) filters += fmt::format(" --launch-skip {}", r.launch_skip);
    spdlog::error("no kernel launch was profiled{}{}: {}", filters.empty() ? "" : " with", filters, what);
    return static_cast<int>(exit_code::failures);
  }
  return col.failed() > 0 ? static_cast<int>(exit_code::failures) : 0;
}

} // namespace bb::attach
