// bankbench slurm submit|status|resubmit|collect: the options; cluster/slurm.cpp does the work.
#include <iostream>

#include <CLI/CLI.hpp>

#include "runner/cli/commands.hpp"
#include "runner/cluster/slurm.hpp"
#include "runner/common/backend.hpp"

namespace bb::cli {

namespace {

struct slurm_cli {
  cluster::slurm_options options;
  std::string backend;
  CLI::App *submit = nullptr, *status = nullptr, *resubmit = nullptr, *collect = nullptr;
};

int run_slurm(slurm_cli& o) {
  auto& options = o.options;
  options.action = o.submit->parsed()     ? cluster::slurm_action::submit
                   : o.status->parsed()   ? cluster::slurm_action::status
                   : o.resubmit->parsed() ? cluster::slurm_action::resubmit
                                          : cluster::slurm_action::collect;
  if (!o.backend.empty()) options.run_backend = backend_named(o.backend); // CLI11 has checked the name
  return cluster::run_slurm(options, std::cout);
}

void add_folder(CLI::App* app, slurm_cli& o) {
  refuse_empty(app->add_option("sweep", o.options.spec.folder, "the sweep folder `slurm submit --sweep` made"),
               "the sweep folder `slurm submit --sweep` made")
      ->required();
}

} // namespace

run_fn setup_slurm(CLI::App& sub, const global_options&) {
  auto o = std::make_shared<slurm_cli>();
  sub.require_subcommand(1);
  auto* s = o->submit = sub.add_subcommand("submit",
                                           "submit experiments as a job array, one shard per task, and a merge job");
  s->add_option("inputs", o->options.spec.inputs, "experiment files or folders")
      ->default_val(std::vector<std::string>{"experiments"});
  refuse_empty(s->add_option("--sweep", o->options.spec.folder,
                             "the sweep folder, on a file system every node sees (made here)"),
               "a folder on the file system the nodes share")
      ->required();
  add_number_option(*s, "-N,--tasks", o->options.spec.tasks, "array tasks: task I runs `run --shard I/N`",
                    number_rule::integer(1, 100000))
      ->required();
  add_number_option(*s, "--throttle", o->options.spec.throttle,
                    "at most K tasks at once (sbatch --array=...%K); 0: no limit", number_rule::integer(0, 100000));
  s->add_option("--gres", o->options.spec.gres, "sbatch --gres of each task; none: ask for no GPU")
      ->capture_default_str();
  s->add_option("-p,--partition", o->options.spec.partition, "sbatch --partition of both jobs");
  s->add_option("-t,--time", o->options.spec.time_limit, "sbatch --time of each task, e.g. 01:00:00");
  s->add_option("--sbatch-option", o->options.spec.sbatch_args,
                "passed to sbatch for both jobs as it is, e.g. --sbatch-option=--account=lab (repeatable)");
  s->add_option("-b,--backend", o->backend, "run --backend of every task (cupti or model)")
      ->check(CLI::IsMember({"cupti", "model"}));
  s->add_option("--run-option", o->options.spec.run_args,
                "passed to each task's `bankbench run`, e.g. --run-option=--no-timing (repeatable)");
  s->add_option("--bankbench", o->options.spec.bankbench, "the bankbench binary the tasks run (default: this one)");
  s->add_flag("--print", o->options.print_only, "print the sbatch commands, write and submit nothing");

  o->status = sub.add_subcommand("status",
                                 "which tasks finished, failed, were stopped or never ran, from the sweep's markers");
  add_folder(o->status, *o);
  o->resubmit = sub.add_subcommand("resubmit", "submit the tasks not done again (or --tasks), and a new merge job");
  add_folder(o->resubmit, *o);
  o->resubmit->add_option("--tasks", o->options.tasks, "task numbers, e.g. 2,5-7 (default: every task not done)");
  o->resubmit->add_option("-t,--time", o->options.new_time,
                          "sbatch --time of the tasks from now on, e.g. 04:00:00 for tasks a time limit stopped");
  o->resubmit->add_flag("--print", o->options.print_only, "print the sbatch commands, submit nothing");
  o->collect = sub.add_subcommand("collect", "status, then merge the finished shards into one database");
  add_folder(o->collect, *o);
  refuse_empty(o->collect->add_option("--into", o->options.into,
                                      "the merged database (default: SWEEP/merged.sqlite), rebuilt each time"),
               "a database file, e.g. merged.sqlite");
  o->collect->add_flag("--partial", o->options.partial, "merge also what failed, stopped and unfinished tasks stored");
  return [o] { return run_slurm(*o); };
}

} // namespace bb::cli
