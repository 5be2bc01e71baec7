// bankbench slurm: submitting a sweep, reading its tasks' states, running the rest again, merging.
#include "runner/cluster/slurm.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "runner/common/child_process.hpp"
#include "runner/common/error.hpp"
#include "runner/config/experiment.hpp"
#include "runner/config/experiment_files.hpp"
#include "runner/store/database.hpp"
#include "runner/store/merge.hpp"

namespace bb::cluster {

namespace {

namespace fs = std::filesystem;

/// Runs argv (PATH searched) and returns its exit code and stdout; stderr is passed on, or dropped.
std::pair<int, std::string> capture(const std::vector<std::string>& argv, bool show_errors = true) {
  const auto fds = open_pipe();
  const pid_t pid = fork_flushed();
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    if (!show_errors) std::freopen("/dev/null", "w", stderr);
    close(fds[0]);
    close(fds[1]);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::fprintf(stderr, "bankbench: error: cannot run %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  close(fds[1]);
  std::string out;
  char chunk[4096];
  for (ssize_t n; (n = read(fds[0], chunk, sizeof chunk)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    out.append(chunk, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  const int status = wait_for(pid);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), out};
}

/// sbatch --parsable prints "jobid" or "jobid;cluster".
std::string sbatch(const std::vector<std::string>& argv) {
  const auto [rc, out] = capture(argv);
  if (rc != 0) // sbatch writes its reasons to standard error, which goes straight to the terminal
    throw environment_error(
        fmt::format("sbatch failed (exit code {}){}\n  the command was: {}", rc,
                    out.find_first_not_of(" \n") == std::string::npos ? "; its message is above" : ": " + out,
                    sweep::shell_line(argv)));
  std::string id = out.substr(0, out.find_first_of(";\n"));
  if (id.empty()) throw environment_error("sbatch printed no job id for: " + sweep::shell_line(argv));
  return id;
}

/// Submits `tasks` as one array and the merge job after it; prints both job ids. Where sbatch
/// refuses the array job, `refused` runs before the error goes on (nothing reached the queue).
int submit_tasks(const sweep::spec& s, const std::vector<int>& tasks, bool print_only, std::ostream& out,
                 const std::function<void()>& refused = {}) {
  const auto array = sweep::array_command(s, tasks);
  if (print_only) {
    out << sweep::shell_line(array) << "\n" << sweep::shell_line(sweep::merge_command(s, "$ARRAY_JOB_ID")) << "\n";
    return 0;
  }
  std::string array_job;
  try {
    array_job = sbatch(array);
  } catch (...) {
    if (refused) refused();
    throw;
  }
  std::string merge_job;
  try {
    merge_job = sbatch(sweep::merge_command(s, array_job));
  } catch (const environment_error& e) {
    // The tasks are queued: the sweep records them (status and resubmit follow them), and says
    // how to merge by hand.
    sweep::record_submission(s.folder, array_job, "", sweep::array_ranges(tasks));
    throw environment_error(fmt::format("{}\n  the array job {} (tasks {}) is queued and recorded in {}; once it "
                                        "ends, `bankbench slurm collect {}` merges its databases",
                                        e.what(), array_job, sweep::array_ranges(tasks), s.folder, s.folder));
  }
  sweep::record_submission(s.folder, array_job, merge_job, sweep::array_ranges(tasks));
  out << fmt::format("submitted array job {} (tasks {}) and merge job {} (afterany:{}); sweep folder {}\n", array_job,
                     sweep::array_ranges(tasks), merge_job, array_job, s.folder);
  out << fmt::format("follow it with: bankbench slurm status {}\n", s.folder);
  return 0;
}

int submit(const slurm_options& o, std::ostream& out) {
  sweep::spec s = o.spec;
  if (s.folder.empty())
    throw usage_error("slurm submit needs --sweep DIR: a folder on the file system the nodes share");
  const auto files = config::experiment_files(s.inputs);
  const auto experiments = config::load_all(files); // bad files stop here, before anything is submitted
  std::size_t total = 0;
  for (const auto& e : experiments) total += config::expand(e).size();
  if (static_cast<std::size_t>(s.tasks) > total)
    spdlog::warn("{} tasks for {} configurations: some tasks will have nothing to run", s.tasks, total);
  s.folder = fs::absolute(s.folder).lexically_normal().string();
  if (!s.folder.empty() && s.folder.back() == '/') s.folder.pop_back();
  for (auto& in : s.inputs) in = fs::absolute(in).lexically_normal().string();
  if (s.bankbench.empty()) s.bankbench = fs::read_symlink("/proc/self/exe").string();
  s.bankbench = fs::absolute(s.bankbench).string();
  if (o.run_backend) s.run_args.insert(s.run_args.begin(), {"--backend", name_of(*o.run_backend)});
  std::vector<int> tasks;
  for (int i = 0; i < s.tasks; ++i) tasks.push_back(i);
  if (o.print_only) return submit_tasks(s, tasks, true, out);
  std::error_code ec;
  const bool created_folder = !fs::exists(s.folder, ec);
  sweep::create(s);
  spdlog::info("{} configurations in {} experiment file(s), {} tasks of about {} each", total, files.size(), s.tasks,
               (total + static_cast<std::size_t>(s.tasks) - 1) / static_cast<std::size_t>(s.tasks));
  // A refused array job leaves no sweep behind: submitting again into the folder works.
  return submit_tasks(s, tasks, false, out, [&] { sweep::remove_unsubmitted(s, created_folder); });
}

/// Where squeue (the controller's queue, not accounting) lists a task of the sweep's arrays, its
/// state: a pending or running task is neither lost nor to be submitted again. Without squeue,
/// or when it fails, the markers alone decide.
void add_queue_states(const sweep::spec& s, std::vector<sweep::task_status>& tasks) {
  for (const auto& job : s.array_jobs) {
    const auto [rc, out] = capture({"squeue", "--noheader", "--array", "--format=%i|%T", "--jobs=" + job}, false);
    if (rc != 0) {
      spdlog::debug("squeue --jobs={} exited {}: task states from the markers alone", job, rc);
      continue;
    }
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
      const auto bar = line.find('|'), under = line.find('_');
      if (bar == std::string::npos || under == std::string::npos || line.substr(0, under) != job) continue;
      int task = -1;
      const std::string number = line.substr(under + 1, bar - under - 1);
      if (std::from_chars(number.data(), number.data() + number.size(), task).ptr != number.data() + number.size() ||
          task < 0 || task >= s.tasks)
        continue;
      auto& t = tasks[static_cast<std::size_t>(task)];
      // An attempt whose end marker is written has ended, whatever squeue says while its job
      // completes; a later submission of the task (a resubmit not yet started) is in the queue.
      const bool ended = t.state == sweep::task_state::done || t.state == sweep::task_state::failed ||
                         t.state == sweep::task_state::stopped;
      if (ended && t.job == job) continue;
      t.queued = line.substr(bar + 1);
      std::transform(t.queued.begin(), t.queued.end(), t.queued.begin(),
                     [](unsigned char c) { return std::tolower(c); });
    }
  }
}

const char* state_name(sweep::task_state t) {
  switch (t) {
  case sweep::task_state::done: return "done";
  case sweep::task_state::failed: return "failed";
  case sweep::task_state::stopped: return "stopped";
  case sweep::task_state::unfinished: return "unfinished";
  case sweep::task_state::never_ran: return "never ran";
  }
  return "?";
}

/// The tasks to submit again: not done, and not in Slurm's queue.
std::vector<int> to_run_again(const std::vector<sweep::task_status>& tasks) {
  std::vector<int> rest;
  for (const auto& t : tasks)
    if (t.queued.empty() && t.state != sweep::task_state::done) rest.push_back(t.task);
  return rest;
}

std::vector<sweep::task_status> states(const sweep::spec& s) {
  auto tasks = sweep::scan(s);
  add_queue_states(s, tasks);
  return tasks;
}

/// Prints every task's state and the command that runs the rest; returns whether all are done.
bool report(const sweep::spec& s, const std::vector<sweep::task_status>& tasks, std::ostream& out) {
  std::vector<int> queued;
  int done = 0;
  out << fmt::format("sweep {}: {} task(s)\n", s.folder, s.tasks);
  out << fmt::format("{:>5}  {:<10}  {:>4}  {}\n", "task", "state", "exit", "started");
  for (const auto& t : tasks) {
    out << fmt::format("{:>5}  {:<10}  {:>4}  {}\n", t.task, t.queued.empty() ? state_name(t.state) : t.queued,
                       t.exit_code >= 0 && t.queued.empty() ? std::to_string(t.exit_code) : "-",
                       t.started.empty() ? "-" : t.started);
    if (!t.queued.empty()) queued.push_back(t.task);
    done += t.state == sweep::task_state::done ? 1 : 0;
  }
  out << fmt::format("{} of {} done", done, s.tasks);
  if (!queued.empty()) out << fmt::format("; in Slurm's queue: {}", sweep::array_ranges(queued));
  const auto rest = to_run_again(tasks);
  if (!rest.empty()) {
    // What each state among the rest means, for the states that are there.
    std::vector<std::string> meaning;
    auto explain = [&](sweep::task_state state, const char* text) {
      if (std::any_of(rest.begin(), rest.end(),
                      [&](int i) { return tasks[static_cast<std::size_t>(i)].state == state; }))
        meaning.push_back(fmt::format("{}: {}", state_name(state), text));
    };
    explain(sweep::task_state::failed, "bankbench exited with an error, see the task's log");
    explain(sweep::task_state::stopped,
            "a signal stopped bankbench (scancel, a time limit: resubmit --time sets a longer one) after it "
            "stored what it finished");
    explain(sweep::task_state::unfinished, "started and ended without a marker, i.e. killed or out of time");
    explain(sweep::task_state::never_ran, "no task of this number started");
    out << fmt::format(
        "; not done: {} ({})\nrun them again with:\n  {}", sweep::array_ranges(rest), fmt::join(meaning, "; "),
        sweep::shell_line({"bankbench", "slurm", "resubmit", s.folder, "--tasks", sweep::array_ranges(rest)}));
  }
  out << "\n";
  return done == s.tasks;
}

int status(const slurm_options& o, std::ostream& out) {
  const auto s = sweep::load(o.spec.folder);
  return report(s, states(s), out) ? 0 : static_cast<int>(exit_code::failures);
}

int resubmit(const slurm_options& o, std::ostream& out) {
  auto s = sweep::load(o.spec.folder);
  if (!o.new_time.empty()) s.time_limit = o.new_time;
  const auto tasks = o.tasks.empty() ? to_run_again(states(s)) : sweep::parse_ranges(o.tasks, s.tasks, "--tasks");
  if (tasks.empty()) {
    out << "every task of " << s.folder << " is done or queued; nothing to resubmit\n";
    return 0;
  }
  const int rc = submit_tasks(s, tasks, o.print_only, out); // throws when sbatch fails
  if (!o.new_time.empty() && !o.print_only) sweep::set_time_limit(s.folder, o.new_time);
  return rc;
}

int collect(const slurm_options& o, std::ostream& out) {
  const auto s = sweep::load(o.spec.folder);
  const auto tasks = states(s);
  const bool all_done = report(s, tasks, out);
  const std::string into = o.into.empty() ? s.folder + "/merged.sqlite" : fs::absolute(o.into).string();
  const std::string tmp = into + ".partial-" + std::to_string(getpid()); // the merge job and a user may collect at once
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(tmp + suffix);
  std::vector<std::string> sources;
  for (const auto& t : tasks) {
    const auto path = sweep::shard_path(s, t.task);
    if ((t.state == sweep::task_state::done || o.partial) && fs::exists(path)) sources.push_back(path);
  }
  // Rebuilt from the shards every time: a task run again replaces its shard, and nothing is merged twice.
  {
    auto db = store::database::open(tmp);
    for (const auto& path : sources) {
      const auto source = store::database::open_read_only(path);
      const auto c = store::merge_database(db, source);
      spdlog::info("merged {}: {} run(s), {} configurations", path, c.runs_added, c.configurations_added);
    }
  }
  fs::rename(tmp, into);
  out << fmt::format("merged {} shard database(s) into {}\n", sources.size(), into);
  return all_done ? 0 : static_cast<int>(exit_code::failures);
}

} // namespace

int run_slurm(const slurm_options& o, std::ostream& out) {
  if (o.action == slurm_action::submit) return submit(o, out);
  if (o.action == slurm_action::status) return status(o, out);
  if (o.action == slurm_action::resubmit) return resubmit(o, out);
  return collect(o, out);
}

} // namespace bb::cluster
