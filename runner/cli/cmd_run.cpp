// bankbench run [FILE|DIR...]: verify, profile and time every configuration; store each as it ends.
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "runner/cli/commands.hpp"
#include "runner/common/error.hpp"
#include "runner/common/path_text.hpp"
#include "runner/config/experiment_files.hpp"
#include "runner/query/show.hpp"
#include "runner/session/plan.hpp"
#include "runner/session/resume_check.hpp"
#include "runner/session/run_session.hpp"
#include "runner/session/run_shares.hpp"
#include "runner/session/lines_pass.hpp"
#include "runner/session/supervisor.hpp"
#include "runner/store/database.hpp"

namespace bb::cli {

namespace {

using session::resume_point;
using session::run_plan;

/// `bankbench run`'s options as given on the command line; run_plan_of resolves them.
struct run_options {
  std::vector<std::string> inputs{"experiments"};
  int device = 0;
  std::string backend = "cupti"; ///< cupti: measure on the GPU; model: predict, no GPU needed
  bool no_counters = false;
  bool no_timing = false;            ///< counters and verification only
  bool launch_once = false;          ///< one verified launch per configuration, no profiler, no timing
  std::string cache_control = "all"; ///< all | once | none: see launch::exec_options
  std::string allocator = "pool";    ///< pool | driver: see launch/device_memory.hpp
  bool dry_run = false;
  bool isolate = true;                  ///< run configurations in a worker process that may crash
  int samples = 0;                      ///< 0: as the experiment file says
  int placements = 0;                   ///< 0: as the experiment file says
  int warmup = -1;                      ///< -1: as the experiment file says
  double min_sample_us = 200;           ///< launch::exec_options::min_sample_ns, in us
  double time_limit_s = 0;              ///< 0: as the experiment file says
  std::int64_t resume = 0;              ///< run id to complete, or 0
  std::string shard;                    ///< share of the configurations (config/share.hpp), stored in runs.shard
  std::string devices;                  ///< --devices: "all" or "0,2,3"; empty: one device, --device
  std::string spread = "configuration"; ///< --spread over devices: configuration | variant
  bool inputs_given = false;            ///< `inputs` named on the command line (not the default)
  unsigned jobs = 0;                    ///< threads compiling source variants; 0: source::default_jobs()
  bool lines = false;                   ///< --lines: per-instruction shared-memory counters
  std::vector<std::string> lines_for;   ///< --lines-for: which configurations; empty: all
  unsigned lines_jobs = 4;              ///< --lines-jobs: collecting processes at a time per GPU
  std::int64_t model_budget = 0;        ///< --model-budget; 0: source::k_default_model_budget
  std::string model_source = "plan";    ///< --model-source: plan | code, for built-in variants
  std::string code_twins;               ///< --code-twins: the twins' folder; empty: the source tree's
};

/// The plan the engine runs, resolved once from the options: every value is parsed here, at the
/// edge, and travels typed from here on (the devices, the share, CUDA_VISIBLE_DEVICES).
run_plan run_plan_of(const run_options& o, const global_options& g) {
  run_plan p;
  p.db = g.db;
  p.backend = *backend_named(o.backend); // CLI11 admits cupti and model only
  p.passes = session::passes::from_flags(o.no_counters, o.no_timing, o.launch_once);
  p.cache_control = launch::cache_control_named(o.cache_control);
  p.allocator = launch::allocator_named(o.allocator);
  p.share = config::parse_shares(o.shard, "--shard"); // checked before anything is read
  // --devices over --device; a dry run needs no device, and "all" would ask CUDA how many.
  p.devices = !o.devices.empty() && !o.dry_run ? session::devices_named(o.devices, p.backend) : std::vector{o.device};
  p.device = p.devices.front();
  if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES"); visible != nullptr) p.visible_devices = visible;
  p.spread = o.spread == "variant" ? config::share_unit::variant : config::share_unit::configuration;
  p.isolate = o.isolate;
  p.model_budget = static_cast<std::uint64_t>(o.model_budget);
  p.model_source = o.model_source == "code" ? session::model_source::code : session::model_source::plan;
  p.code_twins = o.code_twins;
  p.samples = o.samples;
  p.placements = o.placements;
  p.warmup = o.warmup;
  p.min_sample_us = o.min_sample_us;
  p.time_limit_s = o.time_limit_s;
  p.command_line = g.command_line;
  p.compile_jobs = o.jobs;
  p.lines = o.lines || !o.lines_for.empty();
  p.lines_for = o.lines_for;
  p.lines_jobs = o.lines_jobs;
  return p;
}

/// Options given on the command line that the chosen mode does not use: said, not silently dropped.
void warn_ignored(const CLI::App& sub, const run_options& o, const run_plan& plan) {
  const auto given = [&](const char* name) {
    const CLI::Option* opt = sub.get_option_no_throw(name);
    return opt != nullptr && opt->count() > 0;
  };
  const auto ignored = [&](std::initializer_list<const char*> names, const std::string& why) {
    std::string list;
    for (const char* n : names)
      if (given(n))
        list += (list.empty() ? "" : ", ") + (n == std::string("inputs") ? "the experiment files" : std::string(n));
    if (!list.empty()) spdlog::warn("{} ignored: {}", list, why);
  };
  if (o.resume != 0) ignored({"inputs"}, "--resume runs the rest of the stored run's own experiment");
  if (o.dry_run) return; // a dry run only lists
  if (!plan.model())
    ignored({"--model-budget", "--model-source", "--code-twins"}, "they choose how --backend model predicts");
  else if (plan.model_source != session::model_source::code)
    ignored({"--code-twins"}, "only --model-source code reads the code twins");
  if (plan.model())
    ignored({"--device", "--samples", "--placements", "--warmup", "--min-sample-us", "--no-counters", "--no-timing",
             "--cache-control", "--allocator", "--time-limit", "--no-isolation", "--jobs"},
            "--backend model predicts the counters from access plans and kernels' code; nothing runs on a GPU or "
            "is timed");
  else if (plan.passes.launch_once)
    ignored({"--samples", "--placements", "--warmup", "--min-sample-us", "--no-timing", "--cache-control"},
            "--launch-once launches each configuration once, with no counters and no timing");
  else if (!plan.passes.timing)
    ignored({"--samples", "--placements", "--warmup", "--min-sample-us"}, "--no-timing skips the timing pass");
  if (plan.devices.size() > 1)
    ignored({"--no-isolation"}, "several devices run in a worker process each");
  else if (plan.lines && !plan.model())
    ignored({"--no-isolation"}, "--lines runs the configurations in a worker process (the collecting processes it "
                                "forks afterwards need a run process that never opened CUDA)");
}

/// The results table of each run, once the configurations have run.
void show_tables(const std::string& db_path, const std::vector<std::int64_t>& run_ids) {
  if (run_ids.empty()) return;
  const auto db = store::database::open_existing(db_path);
  for (const auto id : run_ids) query::show_run(db, id, std::cout, query::output_format::table);
}

/// The one summary line of `bankbench run`, on stderr and not through the logger: it is the run's
/// verdict and stays under -q.
/// --code-twins names a folder that is there: a missing one, or a file, would send every built-in
/// configuration to its plan with a note per configuration rather than say so once.
void check_code_twins_folder(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0)
    throw usage_error("--code-twins " + shown_path(dir) + ": no such folder; name the folder of the code twins (" +
                      "bench/code_twins of a bankbench checkout), or leave the option out for the one bankbench " +
                      "was built from");
  if (S_ISDIR(st.st_mode)) return;
  const std::string is = file_type_words(st.st_mode);
  throw usage_error("--code-twins " + shown_path(dir) + " is " + (is.empty() ? "a file" : is) +
                    "; it names the folder that holds the twins (FAMILY.yaml), e.g. bench/code_twins");
}

void print_summary(const std::string& line) {
  if (line.empty()) return;
  std::cout.flush();
  std::fflush(stdout);
  fmt::print(stderr, "bankbench: {}\n", line);
}

int run_run(const run_options& o, run_plan& plan) {
  if (plan.passes.launch_once && plan.model())
    throw usage_error("--launch-once measures on a GPU; it cannot be combined with --backend model");
  if (plan.lines && plan.model())
    throw usage_error("--lines measures each instruction on a GPU; it cannot be combined with --backend model");
  if (plan.devices.size() > 1 && o.resume != 0)
    throw usage_error("--resume completes one run, which ran on one GPU; pass --device (or one --devices ordinal)");
  if (plan.model() && plan.model_source == session::model_source::code && !plan.code_twins.empty())
    check_code_twins_folder(plan.code_twins);
  resume_point start;
  std::vector<config::experiment> experiments;
  if (o.resume != 0) {
    std::function<std::vector<config::experiment>()> given;
    if (o.inputs_given) given = [&] { return config::load_all(config::experiment_files(o.inputs)); };
    auto resumed = session::reopen_run(plan, o.resume, given);
    experiments = std::move(resumed.experiments);
    start = std::move(resumed.start);
  } else {
    experiments = config::load_all(config::experiment_files(o.inputs));
    // Kernels needing a library not found here (CUTLASS) are skipped with a note: a GPU run and the
    // model (which runs the kernels' PTX) both compile them.
    if (session::skip_unavailable(experiments) > 0 && experiments.empty()) return 0;
    session::group_by_metric_list(experiments);
    start = resume_point(experiments.size());
    if (!plan.share.empty()) {
      const auto kept = session::keep_only_share(experiments, plan.share, start);
      spdlog::info("share {}: {} configuration(s)", o.shard, kept);
    }
  }
  plan.lines_in_files = std::any_of(experiments.begin(), experiments.end(), [](const auto& e) { return e.lines; });
  if (o.dry_run) {
    for (std::size_t i = 0; i < experiments.size(); ++i) {
      const auto& e = experiments[i];
      for (const auto& c : config::expand(e))
        if (start.done[i].count(static_cast<int>(c.index)) == 0)
          std::cout << shown_path(e.path) << ": " << e.family << "/" << c.variant << " "
                    << config::describe_params(c.params) << (session::wants_lines(plan, e, c) ? "  [lines]" : "")
                    << "\n";
    }
    return 0;
  }
  int code = 0;
  try {
    code = session::execute(experiments, plan, start,
                            [&](const std::vector<std::int64_t>& run_ids) { show_tables(plan.db, run_ids); });
  } catch (const error& e) {
    print_summary(session::finish_session(plan.db, start, static_cast<int>(e.code())));
    throw;
  }
  print_summary(session::finish_session(plan.db, start, code));
  return code;
}

} // namespace

run_fn setup_run(CLI::App& sub, const global_options& global) {
  auto o = std::make_shared<run_options>();
  auto* inputs = sub.add_option("inputs", o->inputs, "experiment files or folders")->capture_default_str();
  add_number_option(sub, "-d,--device", o->device, "CUDA device ordinal", number_rule::integer(0, 1023))
      ->capture_default_str();
  sub.add_option("-b,--backend", o->backend,
                 "cupti: measure on the GPU; model: predict without a GPU, from access plans (built-in variants) "
                 "and from the kernel's own PTX (source variants)")
      ->check(CLI::IsMember({"cupti", "model"}))
      ->capture_default_str();
  sub.add_flag("--no-counters", o->no_counters, "time and verify only, without CUPTI (e.g. when running under ncu)");
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
  add_number_option(sub, "--samples", o->samples, "timing samples per configuration (overrides the file)",
                    number_rule::integer(1, 100000));
  add_number_option(sub, "--placements", o->placements,
                    "instances of each configuration the timing samples are split over, each with its own "
                    "buffers; the median stored is the fastest instance's (overrides the file; default 1)",
                    number_rule::integer(1, 100));
  add_number_option(sub, "--min-sample-us", o->min_sample_us,
                    "shortest timing sample in microseconds: a shorter kernel is launched back to back (up to 64 "
                    "times) and a sample's time is divided by its launches",
                    number_rule::real(1, 1e6, "microseconds"))
      ->capture_default_str();
  add_number_option(sub, "--warmup", o->warmup, "warm-up launches before timing (overrides the file)",
                    number_rule::integer(0, 100000));
  add_number_option(sub, "--time-limit", o->time_limit_s, "seconds one configuration may take (overrides the file)",
                    number_rule::real(0.001, 86400, "seconds"));
  add_number_option(sub, "--resume", o->resume, "complete the remaining configurations of an interrupted run",
                    number_rule::integer(1, 9e15).said("a run id (a whole number, 1 or more)"));
  sub.add_option("--shard", o->shard,
                 "run share I of N of the configurations (0 <= I < N): within each experiment, in --dry-run order, "
                 "configuration k goes to share (k + FNV-1a(experiment name)) mod N; the same files and N give "
                 "the same shares on every machine (docs/clusters.md); append :variant to share whole variants");
  sub.add_option("--devices", o->devices,
                 "all, or GPU ordinals such as 0,2,3: one supervised session per GPU, each with its share of the "
                 "configurations, into the one database; one device is a plain run on it");
  sub.add_option("--spread", o->spread,
                 "how --devices spreads the configurations: configuration (round robin), or variant (all sizes "
                 "of a variant on one GPU, so they are timed on the same chip)")
      ->check(CLI::IsMember({"configuration", "variant"}))
      ->capture_default_str();
  add_jobs_option(sub, o->jobs,
                  "source variants before the GPU phase; with --backend model, also the threads predicting "
                  "configurations");
  add_number_option(sub, "--model-budget", o->model_budget,
                    "--backend model: thread-instructions the PTX interpreter may run for one source configuration "
                    "(default 50000000, about a second); a launch too large to run whole is predicted from a sample "
                    "of its blocks where they all agree",
                    number_rule::integer(1000, 1e12));
  sub.add_option("--model-source", o->model_source,
                 "--backend model: what built-in variants are predicted from: plan, their hand-written access "
                 "plans (fast); code, their family's own kernel code, emulated from its PTX through the family's "
                 "code twin (bench/code_twins/FAMILY.yaml), with per-line predictions (`bankbench lines`); a "
                 "variant without a twin falls back to its plan, saying why")
      ->check(CLI::IsMember({"plan", "code"}))
      ->capture_default_str();
  refuse_empty(sub.add_option("--code-twins", o->code_twins,
                              "--model-source code: the folder of the code twins (default: bench/code_twins of the "
                              "source tree bankbench was built from)"),
               "a folder, e.g. bench/code_twins");
  sub.add_flag("!--no-isolation", o->isolate,
               "run configurations in this process: faster start, but a kernel fault ends the run");
  sub.add_flag("--lines", o->lines,
               "also collect shared-memory wavefronts per SASS instruction and source line (about 0.5 s per "
               "configuration, each in a process of its own); `bankbench lines` shows them");
  sub.add_option("--lines-for", o->lines_for,
                 "which configurations --lines collects (implies --lines; repeatable): a glob of EXPERIMENT/VARIANT "
                 "or VARIANT, or KEY=VALUE of a parameter; default: every configuration")
      ->allow_extra_args(false);
  add_number_option(sub, "--lines-jobs", o->lines_jobs,
                    "collecting processes of --lines at a time on each GPU (each starts CUDA and patches its kernel; "
                    "the GPU itself is mostly idle)",
                    number_rule::integer(1, 64))
      ->capture_default_str();
  return [o, inputs, &global, &sub] {
    o->inputs_given = inputs->count() > 0;
    auto plan = run_plan_of(*o, global);
    warn_ignored(sub, *o, plan);
    return run_run(*o, plan);
  };
}

} // namespace bb::cli
