#include "runner/session/multi_device.hpp"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "runner/common/child_process.hpp"
#include "runner/common/error.hpp"
#include "runner/common/host_info.hpp"
#include "runner/config/share.hpp"
#include "runner/launch/device.hpp"
#include "runner/session/run_shares.hpp"
#include "runner/session/supervisor.hpp"
#include "runner/store/database.hpp"

namespace bb::session {

namespace {

/// cudaGetDeviceCount in a child process, so that this one can still fork workers.
int probe_device_count() {
  const auto fds = open_pipe();
  const pid_t pid = fork_flushed();
  if (pid == 0) {
    close(fds[0]);
    int count = -1;
    exit_code_of([&] { return count = launch::device_count(); });
    [[maybe_unused]] const auto n = write(fds[1], &count, sizeof count);
    _exit(0);
  }
  close(fds[1]);
  int count = -1;
  if (read(fds[0], &count, sizeof count) != static_cast<ssize_t>(sizeof count)) count = -1;
  close(fds[0]);
  wait_for(pid);
  if (count < 0) throw environment_error("--devices all: the CUDA devices could not be counted (see above)");
  if (count == 0) throw environment_error("--devices all: no CUDA device is visible (CUDA_VISIBLE_DEVICES?)");
  return count;
}

/// The worst of the devices' exit codes: an error (2-5) or an interruption before failures (1).
int combined(const std::vector<int>& codes) {
  int worst = 0;
  auto rank = [](int c) { return c == 0 ? 0 : c == 1 ? 1 : c == static_cast<int>(exit_code::interrupted) ? 3 : 2; };
  for (const int c : codes)
    if (rank(c) > rank(worst)) worst = c;
  return worst;
}

} // namespace

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

int run_on_devices(const std::vector<config::experiment>& experiments, const run_plan& plan, resume_point& start) {
  const std::vector<int>& devices = plan.devices;
  // Created here, before any fork, so that the devices never race to write the schema, and so
  // that every device's runs belong to this invocation's one session.
  {
    auto db = store::database::open(plan.db);
    if (start.session_id == 0) {
      store::session_record session;
      session.host = host_name();
      session.pid = static_cast<std::int64_t>(getpid());
      session.command_line = plan.command_line;
      start.session_id = db.begin_session(session);
    }
  }
  const auto unit = plan.spread;
  const auto base = config::parse_shares(plan.shard, "--shard");
  const int n = static_cast<int>(devices.size());
  spdlog::info("{} devices ({}): configurations spread by {}", n, fmt::join(devices, ","),
               unit == config::share_unit::variant ? "variant" : "configuration");

  struct child {
    pid_t pid = -1;
    int device = 0;
    std::FILE* tables = nullptr;
  };
  std::vector<child> children;
  // Ctrl-C reaches the children with the terminal's process group; a SIGINT sent to this process
  // alone is passed on to them (no SA_RESTART, so that waitpid returns to pass it on).
  struct sigaction on_int {
  }, previous{};
  on_int.sa_handler = [](int) { g_interrupted.store(true); };
  sigemptyset(&on_int.sa_mask);
  sigaction(SIGINT, &on_int, &previous);
  for (int slot = 0; slot < n; ++slot) {
    run_plan mine = plan;
    mine.device = devices[static_cast<std::size_t>(slot)];
    mine.devices.clear();
    const auto chain = config::then(base, {slot, n, unit});
    mine.shard = config::share_text(chain);
    resume_point share = start;
    const auto kept = keep_only_share(experiments, chain, share);
    spdlog::info("GPU {}: share {}, {} configurations", mine.device, mine.shard, kept);
    std::FILE* tables = std::tmpfile();
    if (tables == nullptr) throw api_error(std::string("tmpfile failed: ") + std::strerror(errno));
    const pid_t pid = fork_flushed();
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL); // the parent killed with -9 takes its device sessions along
      if (dup2(fileno(tables), STDOUT_FILENO) < 0) _exit(static_cast<int>(exit_code::internal));
      spdlog::default_logger()->set_pattern(fmt::format("bankbench: [gpu {}] %^%l%$: %v", mine.device));
      if (!mine.supervised()) mine.device_alone = launch::make_only_visible(mine.device); // else each worker does
      const int rc = exit_code_of([&] {
        return mine.supervised() ? supervise(experiments, mine, share)
                                 : run_in_process(experiments, mine, share, nullptr, true);
      });
      spdlog::default_logger()->flush();
      std::fflush(nullptr);
      _exit(rc);
    }
    children.push_back({pid, mine.device, tables});
  }

  std::vector<int> codes;
  bool passed_on = false;
  for (auto& c : children) {
    int status = 0;
    while (waitpid(c.pid, &status, 0) < 0 && errno == EINTR)
      if (g_interrupted.load() && !std::exchange(passed_on, true))
        for (const auto& other : children) kill(other.pid, SIGINT);
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : static_cast<int>(exit_code::internal);
    codes.push_back(code);
    if (code <= 1 || code == static_cast<int>(exit_code::interrupted))
      spdlog::info("GPU {}: session ended with exit code {}", c.device, code);
    else
      spdlog::error("GPU {}: its session ended with exit code {}; its remaining configurations were not run "
                    "(the other GPUs' results are stored)",
                    c.device, code);
  }
  sigaction(SIGINT, &previous, nullptr);
  for (auto& c : children) { // the tables, one GPU after the other
    std::rewind(c.tables);
    char chunk[4096];
    for (std::size_t got; (got = std::fread(chunk, 1, sizeof chunk, c.tables)) > 0;) std::fwrite(chunk, 1, got, stdout);
    std::fclose(c.tables);
  }
  std::fflush(stdout);
  return combined(codes);
}

} // namespace bb::session
