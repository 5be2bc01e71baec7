// bankbench run [FILE|DIR...]: verify, profile and time every configuration; store each as it ends.
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/experiment_files.hpp"
#include "cli/resume_check.hpp"
#include "cli/run_session.hpp"
#include "cli/supervisor.hpp"
#include "common/error.hpp"
#include "registry/registry.hpp"
#include "store/database.hpp"
#include "store/resume.hpp"

namespace bb::cli {

namespace {

/// `--resume RUN`: the run's own stored experiment text, and what it already holds.
std::vector<config::experiment> load_resumed(const run_options& o, const global_options& g, resume_point& start) {
  auto db = store::database::open_existing(g.db);
  const auto detail = db.run(o.resume);
  if (!detail) throw usage_error("--resume " + std::to_string(o.resume) + ": no such run in " + g.db +
                                 " (see `bankbench list runs`)");
  if (detail->status == "completed")
    throw usage_error("run " + std::to_string(o.resume) + " is already complete; nothing to resume");
  check_resume_request(db, o.resume, o.backend);
  if (o.inputs_given) { // files named with --resume must be the run's own experiment
    const auto given = load_all(experiment_files(o.inputs));
    if (given.size() != 1)
      throw usage_error(fmt::format("--resume {} completes one run; name at most its one experiment file", o.resume));
    check_resume_text(db, o.resume, given[0].path, given[0].text);
  }
  std::vector<config::experiment> experiments{
      config::load_experiment_text(detail->run.experiment_text, detail->run.experiment_path, registry::instance())};
  start = resume_point(1);
  start.run_ids[0] = o.resume;
  for (const int seq : store::stored_sequences(db, o.resume)) start.done[0].insert(seq);
  store::reopen_run(db, o.resume);
  return experiments;
}

int run_run(run_options& o, const global_options& g) {
  if (o.launch_once && o.backend == "model")
    throw usage_error("--launch-once measures on a GPU; it cannot be combined with --backend model");
  resume_point start;
  std::vector<config::experiment> experiments;
  if (o.resume != 0) {
    experiments = load_resumed(o, g, start);
  } else {
    experiments = load_all(experiment_files(o.inputs));
    start = resume_point(experiments.size());
  }
  if (o.dry_run) {
    for (const auto& e : experiments)
      for (const auto& c : config::expand(e))
        std::cout << e.path << ": " << e.family << "/" << c.variant << " " << config::describe_params(c.params) << "\n";
    return 0;
  }
  if (o.backend == "model" || !o.isolate) return run_in_process(experiments, o, g, start, nullptr, true);
  return supervise(experiments, o, g, start);
}

} // namespace

run_fn setup_run(CLI::App& sub, const global_options& global) {
  auto o = std::make_shared<run_options>();
  auto* inputs = sub.add_option("inputs", o->inputs, "experiment files or folders")->capture_default_str();
  sub.add_option("-d,--device", o->device, "CUDA device ordinal")->capture_default_str();
  sub.add_option("-b,--backend", o->backend, "cupti: measure on the GPU; model: predict from access plans, no GPU")
      ->check(CLI::IsMember({"cupti", "model"}))
      ->capture_default_str();
  sub.add_flag("--no-counters", o->no_counters,
               "time and verify only, without CUPTI (e.g. when running under ncu)");
  sub.add_flag("--no-timing", o->no_timing, "count and verify only, without the timing pass");
  sub.add_flag("--launch-once", o->launch_once,
               "launch each configuration once and verify it, with no profiler and no timing: the target "
               "process for Nsight Compute (bench/ncu_parity.py); the launch is in the NVTX range "
               "\"bankbench-measure\"");
  sub.add_option("--cache-control", o->cache_control,
                 "all: run each counter pass and empty the L2 cache before it, as Nsight Compute does by "
                 "default; once: empty it once, then CUPTI's kernel replay (memory restored between passes); "
                 "none: kernel replay on the cache as the verified launch left it")
      ->check(CLI::IsMember({"all", "once", "none"}))
      ->capture_default_str();
  sub.add_option("--allocator", o->allocator,
                 "pool: buffers come from a memory pool that keeps what a configuration frees mapped for the "
                 "next, so no buffer lands on memory given back to the driver, where a DRAM-bound kernel can "
                 "run slower; driver: cudaMalloc and cudaFree for every buffer")
      ->check(CLI::IsMember({"pool", "driver"}))
      ->capture_default_str();
  sub.add_flag("-n,--dry-run", o->dry_run, "list the configurations and exit; needs no GPU");
  sub.add_option("--samples", o->samples, "timing samples per configuration (overrides the file)")
      ->check(CLI::Range(1, 100000));
  sub.add_option("--placements", o->placements,
                 "instances of each configuration the timing samples are split over, each with its own "
                 "buffers; the median stored is the fastest instance's (overrides the file; default 1)")
      ->check(CLI::Range(1, 100));
  sub.add_option("--min-sample-us", o->min_sample_us,
                 "shortest timing sample in microseconds: a shorter kernel is launched back to back (up to 64 "
                 "times) and a sample's time is divided by its launches")
      ->check(CLI::Range(1.0, 1e6))
      ->capture_default_str();
  sub.add_option("--warmup", o->warmup, "warm-up launches before timing (overrides the file)")
      ->check(CLI::Range(0, 100000));
  sub.add_option("--time-limit", o->time_limit_s, "seconds one configuration may take (overrides the file)")
      ->check(CLI::Range(0.001, 86400.0));
  sub.add_option("--resume", o->resume, "complete the remaining configurations of an interrupted run")
      ->check(CLI::PositiveNumber);
  sub.add_flag("!--no-isolation", o->isolate,
               "run configurations in this process: faster start, but a kernel fault ends the run");
  return [o, inputs, &global] {
    o->command_line = global.command_line;
    o->inputs_given = inputs->count() > 0;
    return run_run(*o, global);
  };
}

} // namespace bb::cli
