// bankbench slurm submit|status|resubmit|collect: a suite as a Slurm job array, one shard per task.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "runner/common/child_process.hpp"
#include "runner/cli/commands.hpp"
#include "runner/config/experiment_files.hpp"
#include "runner/session/sweep.hpp"
#include "runner/common/error.hpp"
#include "runner/config/share.hpp"
#include "runner/store/database.hpp"
#include "runner/store/merge.hpp"

namespace bb::cli {

namespace {

namespace fs = std::filesystem;

struct slurm_options {
  session::sweep::spec spec;
  std::string backend, tasks_text, into, new_time;
  bool print_only = false, partial = false;
  CLI::App *submit = nullptr, *status = nullptr, *resubmit = nullptr, *collect = nullptr;
};

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
  if (rc != 0)
    throw environment_error(fmt::format("sbatch failed (exit code {}): {}\n  the command was: {}", rc, out,
                                        session::sweep::shell_line(argv)));
  std::string id = out.substr(0, out.find_first_of(";\n"));
  if (id.empty()) throw environment_error("sbatch printed no job id for: " + session::sweep::shell_line(argv));
  return id;
}

/// Submits `tasks` as one array and the merge job after it; prints both job ids.
int submit_tasks(const session::sweep::spec& s, const std::vector<int>& tasks, bool print_only) {
  const auto array = session::sweep::array_command(s, tasks);
  if (print_only) {
    std::cout << session::sweep::shell_line(array) << "\n"
              << session::sweep::shell_line(session::sweep::merge_command(s, "$ARRAY_JOB_ID")) << "\n";
    return 0;
  }
  const auto array_job = sbatch(array);
  const auto merge_job = sbatch(session::sweep::merge_command(s, array_job));
  session::sweep::record_submission(s.folder, array_job, merge_job, session::sweep::array_ranges(tasks));
  std::cout << fmt::format("submitted array job {} (tasks {}) and merge job {} (afterany:{}); sweep folder {}\n",
                           array_job, session::sweep::array_ranges(tasks), merge_job, array_job, s.folder);
  std::cout << fmt::format("follow it with: bankbench slurm status {}\n", s.folder);
  return 0;
}

int submit(slurm_options& o) {
  auto& s = o.spec;
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
  if (!o.backend.empty()) s.run_args.insert(s.run_args.begin(), {"--backend", o.backend});
  std::vector<int> tasks;
  for (int i = 0; i < s.tasks; ++i) tasks.push_back(i);
  if (o.print_only) return submit_tasks(s, tasks, true);
  session::sweep::create(s);
  spdlog::info("{} configurations in {} experiment file(s), {} tasks of about {} each", total, files.size(), s.tasks,
               (total + static_cast<std::size_t>(s.tasks) - 1) / static_cast<std::size_t>(s.tasks));
  return submit_tasks(s, tasks, false);
}

/// Where squeue (the controller's queue, not accounting) lists a task of the sweep's arrays, its
/// state: a pending or running task is neither lost nor to be submitted again. Without squeue,
/// or when it fails, the markers alone decide.
void add_queue_states(const session::sweep::spec& s, std::vector<session::sweep::task_status>& tasks) {
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
      const bool ended = t.state == session::sweep::task_state::done || t.state == session::sweep::task_state::failed ||
                         t.state == session::sweep::task_state::stopped;
      if (ended && t.job == job) continue;
      t.queued = line.substr(bar + 1);
      std::transform(t.queued.begin(), t.queued.end(), t.queued.begin(),
                     [](unsigned char c) { return std::tolower(c); });
    }
  }
}

const char* state_name(session::sweep::task_state t) {
  switch (t) {
  case session::sweep::task_state::done: return "done";
  case session::sweep::task_state::failed: return "failed";
  case session::sweep::task_state::stopped: return "stopped";
  case session::sweep::task_state::unfinished: return "unfinished";
  case session::sweep::task_state::never_ran: return "never ran";
  }
  return "?";
}

/// The tasks to submit again: not done, and not in Slurm's queue.
std::vector<int> to_run_again(const std::vector<session::sweep::task_status>& tasks) {
  std::vector<int> rest;
  for (const auto& t : tasks)
    if (t.queued.empty() && t.state != session::sweep::task_state::done) rest.push_back(t.task);
  return rest;
}

std::vector<session::sweep::task_status> states(const session::sweep::spec& s) {
  auto tasks = session::sweep::scan(s);
  add_queue_states(s, tasks);
  return tasks;
}

/// Prints every task's state and the command that runs the rest; returns whether all are done.
bool report(const session::sweep::spec& s, const std::vector<session::sweep::task_status>& tasks, std::ostream& out) {
  std::vector<int> queued;
  int done = 0;
  out << fmt::format("sweep {}: {} task(s)\n", s.folder, s.tasks);
  out << fmt::format("{:>5}  {:<10}  {:>4}  {}\n", "task", "state", "exit", "started");
  for (const auto& t : tasks) {
    out << fmt::format("{:>5}  {:<10}  {:>4}  {}\n", t.task, t.queued.empty() ? state_name(t.state) : t.queued,
                       t.exit_code >= 0 && t.queued.empty() ? std::to_string(t.exit_code) : "-",
                       t.started.empty() ? "-" : t.started);
    if (!t.queued.empty()) queued.push_back(t.task);
    done += t.state == session::sweep::task_state::done ? 1 : 0;
  }
  out << fmt::format("{} of {} done", done, s.tasks);
  if (!queued.empty()) out << fmt::format("; in Slurm's queue: {}", session::sweep::array_ranges(queued));
  const auto rest = to_run_again(tasks);
  if (!rest.empty()) {
    // What each state among the rest means, for the states that are there.
    std::vector<std::string> meaning;
    auto explain = [&](session::sweep::task_state state, const char* text) {
      if (std::any_of(rest.begin(), rest.end(),
                      [&](int i) { return tasks[static_cast<std::size_t>(i)].state == state; }))
        meaning.push_back(fmt::format("{}: {}", state_name(state), text));
    };
    explain(session::sweep::task_state::failed, "bankbench exited with an error, see the task's log");
    explain(session::sweep::task_state::stopped,
            "a signal stopped bankbench (scancel, a time limit: resubmit --time sets a longer one) after it "
            "stored what it finished");
    explain(session::sweep::task_state::unfinished, "started and ended without a marker, i.e. killed or out of time");
    explain(session::sweep::task_state::never_ran, "no task of this number started");
    out << fmt::format("; not done: {} ({})\nrun them again with:\n  {}", session::sweep::array_ranges(rest),
                       fmt::join(meaning, "; "),
                       session::sweep::shell_line({"bankbench", "slurm", "resubmit", s.folder, "--tasks",
                                                   session::sweep::array_ranges(rest)}));
  }
  out << "\n";
  return done == s.tasks;
}

int status(const slurm_options& o) {
  const auto s = session::sweep::load(o.spec.folder);
  return report(s, states(s), std::cout) ? 0 : static_cast<int>(exit_code::failures);
}

int resubmit(const slurm_options& o) {
  auto s = session::sweep::load(o.spec.folder);
  if (!o.new_time.empty()) s.time_limit = o.new_time;
  const auto tasks = o.tasks_text.empty() ? to_run_again(states(s))
                                          : session::sweep::parse_ranges(o.tasks_text, s.tasks, "--tasks");
  if (tasks.empty()) {
    std::cout << "every task of " << s.folder << " is done or queued; nothing to resubmit\n";
    return 0;
  }
  const int rc = submit_tasks(s, tasks, o.print_only); // throws when sbatch fails
  if (!o.new_time.empty() && !o.print_only) session::sweep::set_time_limit(s.folder, o.new_time);
  return rc;
}

int collect(const slurm_options& o) {
  const auto s = session::sweep::load(o.spec.folder);
  const auto tasks = states(s);
  const bool all_done = report(s, tasks, std::cout);
  const std::string into = o.into.empty() ? s.folder + "/merged.sqlite" : fs::absolute(o.into).string();
  const std::string tmp = into + ".partial-" + std::to_string(getpid()); // the merge job and a user may collect at once
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(tmp + suffix);
  std::vector<std::string> sources;
  for (const auto& t : tasks) {
    const auto path = session::sweep::shard_path(s, t.task);
    if ((t.state == session::sweep::task_state::done || o.partial) && fs::exists(path)) sources.push_back(path);
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
  std::cout << fmt::format("merged {} shard database(s) into {}\n", sources.size(), into);
  return all_done ? 0 : static_cast<int>(exit_code::failures);
}

int run_slurm(slurm_options& o) {
  if (o.submit->parsed()) return submit(o);
  if (o.status->parsed()) return status(o);
  if (o.resubmit->parsed()) return resubmit(o);
  return collect(o);
}

void add_folder(CLI::App* app, slurm_options& o) {
  app->add_option("sweep", o.spec.folder, "the sweep folder `slurm submit --sweep` made")->required();
}

} // namespace

run_fn setup_slurm(CLI::App& sub, const global_options&) {
  auto o = std::make_shared<slurm_options>();
  sub.require_subcommand(1);
  auto* s = o->submit = sub.add_subcommand("submit",
                                           "submit experiments as a job array, one shard per task, and a merge job");
  s->add_option("inputs", o->spec.inputs, "experiment files or folders")
      ->default_val(std::vector<std::string>{"experiments"});
  s->add_option("--sweep", o->spec.folder, "the sweep folder, on a file system every node sees (made here)")
      ->required();
  s->add_option("-N,--tasks", o->spec.tasks, "array tasks: task I runs `run --shard I/N`")
      ->required()
      ->check(CLI::Range(1, 100000));
  s->add_option("--throttle", o->spec.throttle, "at most K tasks at once (sbatch --array=...%K); 0: no limit")
      ->check(CLI::Range(0, 100000));
  s->add_option("--gres", o->spec.gres, "sbatch --gres of each task; none: ask for no GPU")->capture_default_str();
  s->add_option("-p,--partition", o->spec.partition, "sbatch --partition of both jobs");
  s->add_option("-t,--time", o->spec.time_limit, "sbatch --time of each task, e.g. 01:00:00");
  s->add_option("--sbatch-option", o->spec.sbatch_args,
                "passed to sbatch for both jobs as it is, e.g. --sbatch-option=--account=lab (repeatable)");
  s->add_option("-b,--backend", o->backend, "run --backend of every task (cupti or model)")
      ->check(CLI::IsMember({"cupti", "model"}));
  s->add_option("--run-option", o->spec.run_args,
                "passed to each task's `bankbench run`, e.g. --run-option=--no-timing (repeatable)");
  s->add_option("--bankbench", o->spec.bankbench, "the bankbench binary the tasks run (default: this one)");
  s->add_flag("--print", o->print_only, "print the sbatch commands, write and submit nothing");

  o->status = sub.add_subcommand("status",
                                 "which tasks finished, failed, were stopped or never ran, from the sweep's markers");
  add_folder(o->status, *o);
  o->resubmit = sub.add_subcommand("resubmit", "submit the tasks not done again (or --tasks), and a new merge job");
  add_folder(o->resubmit, *o);
  o->resubmit->add_option("--tasks", o->tasks_text, "task numbers, e.g. 2,5-7 (default: every task not done)");
  o->resubmit->add_option("-t,--time", o->new_time,
                          "sbatch --time of the tasks from now on, e.g. 04:00:00 for tasks a time limit stopped");
  o->resubmit->add_flag("--print", o->print_only, "print the sbatch commands, submit nothing");
  o->collect = sub.add_subcommand("collect", "status, then merge the finished shards into one database");
  add_folder(o->collect, *o);
  o->collect->add_option("--into", o->into, "the merged database (default: SWEEP/merged.sqlite), rebuilt each time");
  o->collect->add_flag("--partial", o->partial, "merge also what failed, stopped and unfinished tasks stored");
  return [o] { return run_slurm(*o); };
}

} // namespace bb::cli
