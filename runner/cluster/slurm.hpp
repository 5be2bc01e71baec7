#pragma once
/// `bankbench slurm submit|status|resubmit|collect`: a suite as a Slurm job array, one shard per
/// task, merged after (docs/clusters.md). The command line fills a slurm_options; everything else
/// happens here: sbatch, squeue, the sweep folder (sweep.hpp), the merge.
#include <optional>
#include <ostream>
#include <string>

#include "runner/cluster/sweep.hpp"
#include "runner/common/backend.hpp"

namespace bb::cluster {

enum class slurm_action {
  submit,   ///< make the sweep folder, submit the array and the merge job
  status,   ///< every task's state, from the markers and squeue
  resubmit, ///< submit the tasks not done again, and a new merge job
  collect,  ///< status, then merge the finished shards into one database
};

struct slurm_options {
  slurm_action action = slurm_action::status;
  sweep::spec spec;                       ///< submit: the whole sweep; the others read spec.folder alone
  std::optional<bb::backend> run_backend; ///< submit: `run --backend` of every task; none: run's default
  std::string tasks;       ///< resubmit: "2,5-7" (checked against sweep.json); empty: every task not done or queued
  std::string new_time;    ///< resubmit: the tasks' sbatch --time from now on; empty: as before
  std::string into;        ///< collect: the merged database; empty: SWEEP/merged.sqlite
  bool print_only = false; ///< submit, resubmit: print the sbatch commands, submit nothing
  bool partial = false;    ///< collect: merge also what failed, stopped and unfinished tasks stored
};

/// Does `o.action`, writing its report and the job ids to `out`. Returns 0, or
/// exit_code::failures where status or collect find a task not done. Throws usage_error (no
/// --sweep, bad experiment files, a folder without a sound sweep.json, bad --tasks) and
/// environment_error (sbatch failed).
int run_slurm(const slurm_options& o, std::ostream& out);

} // namespace bb::cluster
