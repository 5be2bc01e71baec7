#pragma once
/// What `bankbench attach` and the library it injects into a program (runner/inject/) say to each
/// other: the settings, passed in the environment, and one JSON object per line over a Unix socket.
///
/// The library sends, per process: `hello` (pid, parent, rank), `device` (once per GPU it profiles
/// on), `ask` (a launch passed the name and NVTX filters: may it be profiled?), `launch` (its
/// counters), `failed` (profiling a launch failed), `error` (the library cannot profile at all) and
/// `summary` (what the process launched, at its exit). bankbench answers `ask` alone, with
/// `{"profile": bool, "more": bool}`; `more` false: no later launch will be profiled, stop asking.
/// No CUDA headers: the host tests speak it without a GPU.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace bb::attach {

/// The environment bankbench gives the program.
inline constexpr const char* k_env_socket = "BANKBENCH_ATTACH_SOCKET";     ///< the socket's path
inline constexpr const char* k_env_settings = "BANKBENCH_ATTACH_SETTINGS"; ///< settings::to_json()
inline constexpr const char* k_env_root_pid = "BANKBENCH_ATTACH_ROOT_PID"; ///< the program's own pid

/// What the injected library needs to decide and to profile, the same in every process.
struct settings {
  std::vector<std::string> metrics;      ///< CUPTI names
  std::string kernel_regex;              ///< "" selects every kernel
  std::vector<std::string> nvtx_include; ///< [DOMAIN@]RANGE, see nvtx_rule
  bool application_only = false;         ///< profile the program's first process only
  bool flush_l2 = true;                  ///< --cache-control all: L2 emptied before each profiled launch

  [[nodiscard]] std::string to_json() const;
  /// Throws usage_error on text that is not settings.
  static settings from_json(const std::string& text);
};

/// One end of the socket: whole lines out, whole lines in.
class channel {
public:
  /// Takes `fd` over: the destructor closes it.
  explicit channel(int fd) : m_fd(fd) {}
  ~channel();
  channel(const channel&) = delete;
  channel& operator=(const channel&) = delete;
  [[nodiscard]] int fd() const { return m_fd; }
  /// Writes `message` and a newline; false when the other end is gone.
  bool send(const nlohmann::json& message) const;
  /// Blocks until a whole line is there; empty at the end of the stream or on bad JSON.
  std::optional<nlohmann::json> receive();
  /// Appends what one read() gives without blocking past it; false at the end of the stream.
  bool fill();
  /// The next whole line already read, parsed; empty when none is complete yet. A line that is
  /// not JSON is returned as a JSON string holding the text, for the caller to report.
  std::optional<nlohmann::json> next();

private:
  int m_fd = -1;
  std::string m_buffer;
};

} // namespace bb::attach
