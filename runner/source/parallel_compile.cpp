#include "runner/source/parallel_compile.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "runner/source/compile_server.hpp"

namespace bb::source {

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

/// "compiling 24 kernels: 7/24, 41 s" on stderr: nothing for the first second (a warm cache is
/// quiet), then refreshed in place on a terminal, or a line every 5 s into a file or a pipe.
class progress_line {
public:
  progress_line(bool wanted, std::size_t total)
      : m_on(wanted && total > 0 && spdlog::default_logger()->should_log(spdlog::level::info)),
        m_terminal(isatty(STDERR_FILENO) == 1),
        m_total(total),
        m_t0(clock_type::now()) {}

  /// How long the caller may wait before the next show().
  [[nodiscard]] std::chrono::milliseconds tick() const { return std::chrono::milliseconds(m_terminal ? 250 : 1000); }

  void show(std::size_t done) {
    const double s = seconds_since(m_t0);
    if (!m_on || s < 1.0) return;
    if (m_terminal) {
      if (s - m_last_s < 0.1 && done != m_total) return; // many cache hits at once: not a line each
      m_last_s = s;
      const std::string text = fmt::format("bankbench: info: {}", text_of(done, s));
      // Padded to the last line's length, so a shorter one leaves nothing behind.
      fmt::print(stderr, "\r{:<{}}", text, m_shown);
      std::fflush(stderr);
      m_shown = std::max(m_shown, text.size());
    } else if (s >= m_next_line_s) {
      spdlog::info("{}", text_of(done, s));
      m_next_line_s = s + 5;
    }
  }

  /// The terminal line ends with the final count.
  void finish(std::size_t done) {
    if (!m_on || !m_terminal || m_shown == 0) return;
    show(done);
    fmt::print(stderr, "\n");
    std::fflush(stderr);
  }

private:
  [[nodiscard]] std::string text_of(std::size_t done, double s) const {
    return fmt::format("compiling {} kernel{}: {}/{}, {:.0f} s", m_total, m_total == 1 ? "" : "s", done, m_total, s);
  }

  bool m_on;
  bool m_terminal;
  std::size_t m_total;
  clock_type::time_point m_t0;
  std::size_t m_shown = 0; ///< the longest terminal line so far; 0 while none
  double m_next_line_s = 5;
  double m_last_s = 0;
};

} // namespace

std::string request_id(const compile_request& request) {
  // Every field joins the id: a field added to compile_request makes this binding fail to compile
  // until it is added here too, so that requests differing in it are never taken for one.
  const auto& [source_path, kernel, defines, include_dirs, arch, compiler, options] = request;
  std::string id = "file " + source_path + "\nkernel " + kernel + "\narch " + arch + "\ncompiler " + name_of(compiler);
  for (const auto& d : defines) id += "\ndefine " + d;
  for (const auto& d : include_dirs) id += "\ninclude " + d;
  for (const auto& o : options) id += "\noption " + o;
  return id;
}

unsigned default_jobs() {
  if (const char* v = std::getenv("BB_COMPILE_JOBS"); v != nullptr && *v != 0) {
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (end != nullptr && *end == 0 && n > 0 && n <= 4096) return static_cast<unsigned>(n);
    spdlog::warn("BB_COMPILE_JOBS='{}' is not a number of threads (1 to 4096); using the machine's {}", v,
                 std::max(1u, std::thread::hardware_concurrency()));
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

std::vector<compile_outcome> compile_parallel(const std::vector<compile_request>& requests,
                                              const parallel_options& options) {
  std::vector<compile_outcome> out(requests.size());
  if (requests.empty()) return out;
  const unsigned jobs = static_cast<unsigned>(
      std::min<std::size_t>(options.jobs > 0 ? options.jobs : default_jobs(), requests.size()));

  std::mutex mutex;
  std::condition_variable changed;
  std::size_t next = 0, done = 0;
  unsigned running = jobs;
  std::exception_ptr fatal;

  // Several threads compile in server processes of their own (compile_server.hpp) where the
  // command line named one: NVRTC's compiles in one process do not run side by side.
  // BB_COMPILE_SERVERS=0 keeps them on threads of this process (for comparison).
  const char* servers = std::getenv("BB_COMPILE_SERVERS");
  const bool in_servers = jobs > 1 && !compile_server().empty() && (servers == nullptr || std::string(servers) != "0");
  const auto work = [&] {
    std::unique_ptr<compile_client> client;
    if (in_servers) client = std::make_unique<compile_client>(compile_server());
    for (;;) {
      std::size_t i = 0;
      {
        const std::lock_guard<std::mutex> lock(mutex);
        if (fatal || next == requests.size() || (options.stop != nullptr && options.stop->load())) break;
        i = next++;
      }
      compile_outcome o;
      o.attempted = true;
      const auto t0 = clock_type::now();
      std::exception_ptr failure;
      try {
        if (client) {
          std::string fallback;
          o = client->compile(requests[i], options.cache_dir, fallback);
          if (!fallback.empty()) note_fallback(requests[i].source_path, fallback);
        } else {
          const compiled_kernel k = compile(requests[i], options.cache_dir);
          o.ok = true;
          o.cache_hit = k.cache_hit;
          o.compile_ms = k.compile_ms;
          o.key = k.key;
        }
      } catch (const compile_error& e) {
        o.error = e.what();
      } catch (...) {
        failure = std::current_exception();
      }
      o.ms = seconds_since(t0) * 1e3;
      {
        const std::lock_guard<std::mutex> lock(mutex);
        out[i] = std::move(o);
        ++done;
        if (failure && !fatal) fatal = failure;
      }
      changed.notify_one();
    }
    {
      const std::lock_guard<std::mutex> lock(mutex);
      --running;
    }
    changed.notify_one();
  };

  progress_line progress(options.progress, requests.size());
  std::vector<std::thread> threads;
  threads.reserve(jobs);
  try {
    for (unsigned t = 0; t < jobs; ++t) threads.emplace_back(work);
  } catch (const std::system_error& e) { // the system's thread limit: fewer threads, or this one
    spdlog::warn("{} of {} compile threads started ({}); going on with {}", threads.size(), jobs, e.what(),
                 threads.empty() ? "this one" : "those");
    const std::lock_guard<std::mutex> lock(mutex);
    running -= jobs - static_cast<unsigned>(threads.size()); // each thread started counts itself down
  }
  if (threads.empty()) {
    running = 1;
    work();
  }
  {
    std::unique_lock<std::mutex> lock(mutex);
    while (running > 0) {
      changed.wait_for(lock, progress.tick());
      const std::size_t now_done = done;
      lock.unlock(); // threads finishing meanwhile are not held up by the printing
      progress.show(now_done);
      lock.lock();
    }
  }
  for (auto& t : threads) t.join();
  progress.finish(done);
  if (fatal) std::rethrow_exception(fatal);
  return out;
}

} // namespace bb::source
