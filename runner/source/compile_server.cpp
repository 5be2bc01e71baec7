#include "runner/source/compile_server.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <iostream>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "runner/common/error.hpp"

namespace bb::source {

namespace {

std::string& server_path() {
  static std::string path;
  return path;
}

nlohmann::json request_json(const compile_request& r, const std::string& cache_dir) {
  return {{"source_path", r.source_path},
          {"kernel", r.kernel},
          {"defines", r.defines},
          {"include_dirs", r.include_dirs},
          {"arch", r.arch},
          {"compiler", name_of(r.compiler)},
          {"options", r.options},
          {"companions", r.companions},
          {"ptx_only", r.ptx_only},
          {"cache_dir", cache_dir}};
}

compiler_choice choice_named(const std::string& name) {
  if (name == "nvrtc") return compiler_choice::nvrtc;
  if (name == "nvcc") return compiler_choice::nvcc;
  return compiler_choice::automatic;
}

std::string dump(const nlohmann::json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

void write_all(int fd, const std::string& text) {
  for (std::size_t at = 0; at < text.size();) {
    const ssize_t n = ::write(fd, text.data() + at, text.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw api_error(std::string("writing to the compile server failed: ") + std::strerror(errno));
    at += static_cast<std::size_t>(n);
  }
}

} // namespace

void set_compile_server(const std::string& executable) { server_path() = executable; }
const std::string& compile_server() { return server_path(); }

compile_client::compile_client(std::string executable) : m_executable(std::move(executable)) {}

compile_client::~compile_client() { stop(); }

void compile_client::start() {
  if (m_pid >= 0) return;
  int to[2], from[2];
  if (pipe2(to, O_CLOEXEC) != 0 || pipe2(from, O_CLOEXEC) != 0)
    throw api_error(std::string("pipe2 failed: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, to[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, from[1], STDOUT_FILENO);
  std::string arg = "__compile-server";
  char* argv[] = {m_executable.data(), arg.data(), nullptr};
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, m_executable.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(to[0]);
  ::close(from[1]);
  if (rc != 0) {
    ::close(to[1]);
    ::close(from[0]);
    throw api_error("cannot start " + m_executable + " as a compile server: " + std::strerror(rc));
  }
  m_pid = pid;
  m_to = to[1];
  m_from = from[0];
  m_buffer.clear();
  m_started = std::chrono::steady_clock::now();
  m_answered = false;
}

void compile_client::stop() {
  if (m_pid < 0) return;
  ::close(m_to); // the server ends at the end of its input
  ::close(m_from);
  int status = 0;
  while (waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
  }
  m_pid = m_to = m_from = -1;
}

compile_outcome compile_client::compile(const compile_request& request, const std::string& cache_dir,
                                        std::string& fallback) {
  if (m_pid < 0) start();
  compile_outcome o;
  o.attempted = true;
  // A server that died leaves EPIPE here: ignored for this process by the signal set-up (SIGPIPE
  // is not one of the stop signals, so it is blocked around the write).
  sigset_t pipe_set, old;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
  bool written = true;
  try {
    write_all(m_to, dump(request_json(request, cache_dir)) + "\n");
  } catch (const api_error&) {
    written = false;
  }
  struct timespec none {};
  sigtimedwait(&pipe_set, nullptr, &none); // a pending SIGPIPE of this write is taken here
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  std::string line;
  bool got = false;
  while (written) {
    const auto eol = m_buffer.find('\n');
    if (eol != std::string::npos) {
      line = m_buffer.substr(0, eol);
      m_buffer.erase(0, eol + 1);
      got = true;
      break;
    }
    char chunk[65536];
    const ssize_t n = ::read(m_from, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    m_buffer.append(chunk, static_cast<std::size_t>(n));
  }
  if (!got) {
    int status = 0;
    ::close(m_to);
    ::close(m_from);
    while (waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
    }
    m_pid = m_to = m_from = -1;
    o.error = request.source_path + ": kernel '" + request.kernel + "': the compiler process " +
              (WIFSIGNALED(status) ? std::string("was killed by signal ") + std::to_string(WTERMSIG(status))
                                   : "ended with exit code " + std::to_string(WEXITSTATUS(status))) +
              " while compiling it";
    return o;
  }
  const auto j = nlohmann::json::parse(line, nullptr, false);
  if (j.is_discarded()) {
    o.error = "the compile server answered what is not JSON: " + line.substr(0, 200);
    return o;
  }
  if (j.contains("fatal"))
    throw error(static_cast<exit_code>(j.value("code", static_cast<int>(exit_code::internal))),
                j.value("fatal", std::string("the compile server failed")));
  o.ok = j.value("ok", false);
  o.cache_hit = j.value("cache_hit", false);
  o.compile_ms = j.value("compile_ms", 0.0);
  if (!m_answered) { // what starting a server costs: its first answer's wait less the compile in it
    m_answered = true;
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - m_started).count();
    spdlog::debug("compile server {}: first answer {:.0f} ms after its start, {:.0f} ms of them compiling: started "
                  "in {:.0f} ms",
                  m_pid, ms, o.compile_ms, ms - o.compile_ms);
  }
  o.key = j.value("key", "");
  o.error = j.value("error", "");
  fallback = j.value("fallback", "");
  return o;
}

int serve_compiles() {
  // The client stops the run on Ctrl-C and ends the server by closing its input once the compile
  // in flight is done; a client that is killed takes the server along.
  for (const int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) std::signal(s, SIG_IGN);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // Messages of the compiles (nvcc's fallback note) are the client's to print, once.
  spdlog::set_level(spdlog::level::warn);
  std::ios::sync_with_stdio(false);
  // NVRTC opened before the first request comes: the client starts a server while it still looks
  // other kernels up in the cache. Where it cannot be opened, the first NVRTC compile says so.
  try {
    (void)nvrtc_version();
  } catch (const error&) {
  }
  for (std::string line; std::getline(std::cin, line);) {
    nlohmann::json answer;
    try {
      const auto j = nlohmann::json::parse(line);
      compile_request r;
      r.source_path = j.at("source_path").get<std::string>();
      r.kernel = j.at("kernel").get<std::string>();
      r.defines = j.at("defines").get<std::vector<std::string>>();
      r.include_dirs = j.at("include_dirs").get<std::vector<std::string>>();
      r.arch = j.at("arch").get<std::string>();
      r.compiler = choice_named(j.at("compiler").get<std::string>());
      r.options = j.at("options").get<std::vector<std::string>>();
      r.companions = j.value("companions", std::vector<std::string>{});
      r.ptx_only = j.value("ptx_only", false);
      try {
        const compiled_kernel k = source::compile(r, j.at("cache_dir").get<std::string>());
        answer = {{"ok", true},
                  {"cache_hit", k.cache_hit},
                  {"compile_ms", k.compile_ms},
                  {"key", k.key},
                  {"fallback", k.fallback}};
      } catch (const compile_error& e) {
        answer = {{"ok", false}, {"error", e.what()}};
      }
    } catch (const error& e) {
      answer = {{"fatal", e.what()}, {"code", static_cast<int>(e.code())}};
    } catch (const std::exception& e) {
      answer = {{"fatal", std::string("compile server: ") + e.what()}, {"code", static_cast<int>(exit_code::internal)}};
    }
    std::cout << dump(answer) << '\n' << std::flush;
  }
  return 0;
}

} // namespace bb::source
