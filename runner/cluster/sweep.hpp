#pragma once
/// A Slurm sweep folder (`bankbench slurm`): one job array, task I running `bankbench run
/// --shard I/N` into its own database, with markers the tasks write themselves, so that status
/// and collect need no Slurm accounting. Layout (docs/clusters.md):
///   sweep.json              what was submitted (inputs, N, options, every submission's job ids)
///   task.sh, merge.sh       the array task and the merge job, as sbatch runs them
///   shards/shard-I.sqlite   task I's database (never one SQLite file shared over NFS)
///   markers/I.started       written as task I starts (job, host, time)
///   markers/I.done|failed   written as it ends, holding bankbench's exit code (0 or 1: done)
///   logs/                   Slurm's output files
///   merged.sqlite           what collect merged, rebuilt from the shards each time
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace bb::cluster::sweep {

struct spec {
  std::string folder; ///< absolute
  int tasks = 1;
  int throttle = 0;                  ///< %K: at most K tasks at once; 0: no limit
  std::vector<std::string> inputs;   ///< absolute experiment files and folders
  std::vector<std::string> run_args; ///< passed to `bankbench run` (e.g. --backend model)
  std::string bankbench;             ///< absolute path of the binary the tasks run
  std::string gres = "gpu:1", partition, time_limit;
  std::vector<std::string> sbatch_args; ///< passed to sbatch as they are, for both jobs
  std::vector<std::string> array_jobs;  ///< the job ids of every submitted array, oldest first
};

/// done: bankbench exited 0 or 1; failed: another code; stopped: a signal stopped it (exit 128 + N:
/// scancel, a time limit) after it stored what it finished; unfinished: started, no marker (the
/// task's shell was killed with it); never_ran: no started marker.
enum class task_state { done, failed, stopped, unfinished, never_ran };

struct task_status {
  int task = 0;
  task_state state = task_state::never_ran;
  int exit_code = -1;  ///< bankbench's, where a done, failed or stopped marker holds it
  std::string started; ///< the started marker's text (job, task, host, time)
  std::string job;     ///< the array job id the started marker names: the attempt the markers are of
  std::string queued;  ///< "pending", "running", ... where squeue lists the task; empty otherwise
};

/// Creates the folder, its subfolders, task.sh, merge.sh and sweep.json. Refuses a folder that
/// already holds a sweep.
void create(const spec& s);
/// Undoes create() where nothing reached the queue (sbatch refused the array job): removes
/// sweep.json, task.sh, merge.sh and the subfolders where empty, and the folder itself where
/// `created_folder` and it is empty, so that submitting again into it works.
void remove_unsubmitted(const spec& s, bool created_folder) noexcept;

/// Reads sweep.json; throws usage_error naming the folder when it is not a sweep.
spec load(const std::string& folder);

/// Appends a submission (job ids, tasks) to sweep.json.
void record_submission(const std::string& folder, const std::string& array_job, const std::string& merge_job,
                       const std::string& tasks);

/// Sets the tasks' sbatch --time for this and later submissions (`resubmit --time`).
void set_time_limit(const std::string& folder, const std::string& time_limit);

/// Every task's state, from the markers alone.
std::vector<task_status> scan(const spec& s);

/// Task numbers as sbatch's --array takes them: "0-3,6,8-9".
std::string array_ranges(const std::vector<int>& tasks);

/// Parses "0-3,6" (as array_ranges writes, within 0..tasks-1). Throws usage_error.
std::vector<int> parse_ranges(const std::string& text, int tasks, const std::string& option);

/// The sbatch command lines for `tasks` (argv each; the merge job's dependency is filled in later).
std::vector<std::string> array_command(const spec& s, const std::vector<int>& tasks);
std::vector<std::string> merge_command(const spec& s, const std::string& array_job);

/// Shell text of an argv, each word quoted where it needs to be.
std::string shell_line(const std::vector<std::string>& argv);

/// Path of task I's database.
std::string shard_path(const spec& s, int task);

} // namespace bb::cluster::sweep
