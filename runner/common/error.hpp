#pragma once
/// Typed errors thrown by the host layers. Only main() turns them into exit codes.
#include <stdexcept>
#include <string>
#include <vector>

namespace bb {

/// Documented process exit codes (README "Exit codes").
enum class exit_code : int {
  ok = 0,           ///< everything ran, verified and met its expectations
  failures = 1,     ///< the run finished, but a configuration failed or an expectation was not met
  usage = 2,        ///< bad command line or bad experiment file; nothing was written
  environment = 3,  ///< no usable GPU, no counter permission, another profiler attached
  store = 4,        ///< the database cannot be opened, is foreign, corrupt or from a newer bankbench
  internal = 5,     ///< an unexpected CUDA or CUPTI failure, or a bug
  output = 6,       ///< an output file cannot be written (disk full, I/O error, permission)
  interrupted = 130 ///< stopped by SIGINT (128 + the signal for SIGHUP, SIGQUIT, SIGTERM)
};

/// One located problem in an input file.
struct diagnostic {
  std::string file;
  int line = 0;    ///< 1-based; 0 when unknown
  int column = 0;  ///< 1-based; 0 when unknown
  std::string key; ///< path of the offending key, e.g. "expect[1].metric"
  std::string message;
  std::string hint; ///< a fix, e.g. "did you mean 'padded'?"; may be empty

  /// "file:line:col: error: key: message (hint)"
  [[nodiscard]] std::string to_string() const;
};

class error : public std::runtime_error {
public:
  error(exit_code code, const std::string& what) : std::runtime_error(what), m_code(code) {}
  [[nodiscard]] exit_code code() const noexcept { return m_code; }

private:
  exit_code m_code;
};

/// Bad command-line usage.
class usage_error : public error {
public:
  explicit usage_error(const std::string& what) : error(exit_code::usage, what) {}
};

/// One or more problems in an experiment file; all of them are kept.
class config_error : public error {
public:
  explicit config_error(std::vector<diagnostic> diags);
  [[nodiscard]] const std::vector<diagnostic>& diagnostics() const noexcept { return m_diags; }

private:
  std::vector<diagnostic> m_diags;
};

/// The machine cannot do what was asked: no GPU, no permission, a profiler already attached.
class environment_error : public error {
public:
  explicit environment_error(const std::string& what) : error(exit_code::environment, what) {}
};

/// The results database cannot be used.
class store_error : public error {
public:
  explicit store_error(const std::string& what) : error(exit_code::store, what) {}
};

/// An output file (-o, --svg, an export, a baseline) cannot be written; the previous one is kept.
class output_error : public error {
public:
  explicit output_error(const std::string& what) : error(exit_code::output, what) {}
};

/// An unexpected CUDA runtime or CUPTI failure, with the call and where it was made.
class api_error : public error {
public:
  explicit api_error(const std::string& what) : error(exit_code::internal, what) {}
};

} // namespace bb
