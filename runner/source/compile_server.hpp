#pragma once
/// Compiles in processes of their own. NVRTC compiles of one process do not run side by side:
/// on a 16-core H100 machine, 96 small kernels took 2.10 s on one thread and 1.91 s on 16
/// (docs/measurements/2026-11-26-h100-real-kernels.md). So a pool of threads that each hand their
/// requests to a server process of their own (the bankbench binary started as
/// `bankbench __compile-server`, which reads one request per line on stdin and answers one outcome
/// per line on stdout) compiles in parallel for real. The servers write the same cache.
#include <chrono>
#include <memory>
#include <string>

#include "runner/source/parallel_compile.hpp"

namespace bb::source {

/// The binary that serves compiles: set once by the command line (its own /proc/self/exe). Unset
/// (the tests' binaries), compile_parallel() compiles on its threads in-process.
void set_compile_server(const std::string& executable);
const std::string& compile_server();

/// One server process, started on first use and ended by the destructor.
class compile_client {
public:
  explicit compile_client(std::string executable);
  ~compile_client();
  compile_client(const compile_client&) = delete;
  compile_client& operator=(const compile_client&) = delete;

  /// The outcome of compiling `request` into `cache_dir`. A compile error is an outcome; NVRTC or
  /// nvcc missing throws the server's error; a server that dies is an outcome naming it, and the
  /// next request starts a fresh one. `fallback` gets why `auto` used nvcc, if it did.
  compile_outcome compile(const compile_request& request, const std::string& cache_dir, std::string& fallback);

  /// Starts the server now rather than at the first compile(), so that it loads (the binary and
  /// NVRTC, which it opens before its first request) while the caller does something else.
  void start();

private:
  void stop();
  std::string m_executable;
  int m_pid = -1, m_to = -1, m_from = -1;
  std::string m_buffer;
  std::chrono::steady_clock::time_point m_started;
  bool m_answered = false; ///< the server started last has answered once
};

/// The server's side: answers requests from stdin until it closes. Returns the exit code.
int serve_compiles();

} // namespace bb::source
