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
#include <fmt/ranges.h>
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
  // `companions` says what else one nvcc run caches, not what this kernel is: not part of the id.
  const auto& [source_path, kernel, defines, include_dirs, arch, compiler, options, companions, ptx_only] = request;
  (void)companions;
  std::string id = "file " + source_path + "\nkernel " + kernel + "\narch " + arch + "\ncompiler " + name_of(compiler);
  if (ptx_only) id += "\nptx only";
  for (const auto& d : defines) id += "\ndefine " + d;
  for (const auto& d : include_dirs) id += "\ninclude " + d;
  for (const auto& o : options) id += "\noption " + o;
  return id;
}

std::vector<std::size_t> compile_order(const std::vector<std::size_t>& headers) {
  std::vector<std::size_t> order(headers.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return headers[a] > headers[b]; });
  return order;
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
  const auto t_begin = clock_type::now();

  std::mutex mutex;
  std::condition_variable changed;
  std::size_t done = 0;
  std::exception_ptr fatal;
  const auto stopped = [&] { return fatal || (options.stop != nullptr && options.stop->load()); };

  // Two phases. First every request is looked up in the cache here, on the threads (hashing the
  // source and its headers, reading the entry: milliseconds, no NVRTC compile). Then the misses
  // are compiled, those that read the most headers (CuTe's) first, as the longest to expect. A warm
  // run thus starts no server, and a cold one min(jobs, misses).
  struct miss {
    std::size_t index;
    std::size_t headers;
  };
  std::vector<miss> misses;
  std::size_t next_lookup = 0, looked_up = 0, next_miss = 0;
  bool ordered = false;
  unsigned servers = 0, target = 0;
  unsigned running = jobs;

  // Several threads compile in server processes of their own (compile_server.hpp) where the
  // command line named one: NVRTC's compiles in one process do not run side by side.
  // BB_COMPILE_SERVERS=0 keeps them on threads of this process (for comparison).
  const char* servers_env = std::getenv("BB_COMPILE_SERVERS");
  const bool in_servers = jobs > 1 && !compile_server().empty() &&
                          (servers_env == nullptr || std::string(servers_env) != "0");

  const auto finish = [&](std::size_t i, compile_outcome o, const std::exception_ptr& failure) {
    {
      const std::lock_guard<std::mutex> lock(mutex);
      out[i] = std::move(o);
      ++done;
      if (failure && !fatal) fatal = failure;
    }
    changed.notify_all();
  };

  const auto work = [&] {
    std::unique_ptr<compile_client> client;
    // A server is started as soon as its thread meets a miss, so that it loads (the binary,
    // NVRTC) while the other lookups go on.
    const auto start_server = [&] {
      client = std::make_unique<compile_client>(compile_server());
      client->start();
    };
    for (;;) { // the lookups
      std::size_t i = 0;
      {
        const std::lock_guard<std::mutex> lock(mutex);
        if (stopped() || next_lookup == requests.size()) break;
        i = next_lookup++;
      }
      compile_outcome o;
      o.attempted = true;
      const auto t0 = clock_type::now();
      std::size_t headers = 0;
      bool found = true;
      std::exception_ptr failure;
      try {
        if (const auto k = find_cached(requests[i], options.cache_dir, &headers)) {
          o.ok = true;
          o.cache_hit = true;
          o.key = k->key;
        } else {
          found = false;
        }
      } catch (const compile_error& e) {
        o.error = e.what();
      } catch (...) {
        failure = std::current_exception();
      }
      o.ms = seconds_since(t0) * 1e3;
      bool spawn = false;
      {
        const std::lock_guard<std::mutex> lock(mutex);
        ++looked_up;
        if (!found) {
          misses.push_back({i, headers});
          if (in_servers && !client) {
            ++servers;
            spawn = true;
          }
        }
      }
      if (found) {
        finish(i, std::move(o), failure);
      } else {
        changed.notify_all();
      }
      if (spawn) {
        try {
          start_server();
        } catch (...) {
          const std::lock_guard<std::mutex> lock(mutex);
          if (!fatal) fatal = std::current_exception();
        }
      }
    }
    {
      std::unique_lock<std::mutex> lock(mutex);
      changed.wait(lock, [&] { return looked_up == next_lookup && (next_lookup == requests.size() || stopped()); });
      if (!ordered) {
        ordered = true; // in request order, then by compile_order()
        std::sort(misses.begin(), misses.end(), [](const miss& a, const miss& b) { return a.index < b.index; });
        std::vector<std::size_t> headers;
        for (const auto& m : misses) headers.push_back(m.headers);
        std::vector<miss> ordered_misses;
        for (const std::size_t k : compile_order(headers)) ordered_misses.push_back(misses[k]);
        misses = std::move(ordered_misses);
        target = static_cast<unsigned>(std::min<std::size_t>(jobs, misses.size()));
        spdlog::debug("{} of {} kernels in the cache, looked up in {:.0f} ms; {} to compile{}",
                      requests.size() - misses.size(), requests.size(), seconds_since(t_begin) * 1e3, misses.size(),
                      in_servers && !misses.empty() ? fmt::format(" on {} compile servers", target) : "");
      }
    }
    for (;;) { // the compiles
      std::size_t i = 0;
      bool spawn = false;
      {
        const std::lock_guard<std::mutex> lock(mutex);
        if (stopped() || next_miss == misses.size()) break;
        if (in_servers && !client) {
          if (servers >= target) break; // enough servers for the misses left
          ++servers;
          spawn = true;
        }
        i = misses[next_miss++].index;
      }
      compile_outcome o;
      o.attempted = true;
      const auto t0 = clock_type::now();
      std::exception_ptr failure;
      try {
        if (spawn) start_server();
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
      if (o.ok && !o.cache_hit)
        spdlog::debug("compiled {} ({}) in {:.0f} ms", requests[i].kernel, fmt::join(requests[i].defines, " "),
                      o.compile_ms);
      finish(i, std::move(o), failure);
    }
    {
      const std::lock_guard<std::mutex> lock(mutex);
      --running;
    }
    changed.notify_all();
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
