// bankbench attach [OPTIONS] -- PROGRAM [ARGS...]: run a program with bankbench's library injected
// and store the shared-memory counters of its selected kernel launches (docs/attach.md).
#include <sstream>

#include <CLI/CLI.hpp>

#include "runner/attach/attach_run.hpp"
#include "runner/cli/commands.hpp"
#include "runner/common/error.hpp"
#include "runner/common/metrics.hpp"
#include "runner/common/suggest.hpp"

namespace bb::cli {

namespace {

struct attach_options {
  attach::attach_request request;
  std::string metrics = "quick"; // one pass: no replay, the program's memory untouched
  std::string target_processes = "all";
  std::string cache_control = "all";
};

/// --metrics: a named set, or CUPTI names separated by commas.
void resolve_metrics(const std::string& text, attach::attach_request& r) {
  if (const auto* set = metrics::find_set(text)) {
    r.metric_set = set->name;
    r.metrics = set->metrics;
    return;
  }
  std::stringstream in(text);
  for (std::string name; std::getline(in, name, ',');) {
    if (name.empty()) continue;
    if (name.find('_') == std::string::npos || name.find("__") == std::string::npos) {
      std::vector<std::string> sets;
      std::string listed;
      for (const auto& s : metrics::named_sets()) {
        sets.push_back(s.name);
        listed += (listed.empty() ? "" : ", ") + s.name;
      }
      const std::string best = closest_match(name, sets);
      throw usage_error("--metrics '" + name + "' is neither a metric set (" + listed +
                        ") nor a CUPTI metric name such as l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum" +
                        (best.empty() ? "" : "; did you mean '" + best + "'?"));
    }
    r.metrics.push_back(name);
  }
  if (r.metrics.empty()) throw usage_error("--metrics names no metric; give a set such as bank_conflicts");
}

} // namespace

run_fn setup_attach(CLI::App& sub, const global_options& global) {
  auto o = std::make_shared<attach_options>();
  auto& r = o->request;
  sub.add_option("program", r.command, "the program and its arguments, after --")->required();
  sub.add_option("-k,--kernel-name", r.kernel_regex,
                 "profile only kernels whose name (demangled, without its parameter list, e.g. "
                 "at::native::reduce_kernel<512, 1, ...>) or whose function's own name (reduce_kernel, as Nsight "
                 "Compute shows it) contains a match of this regular expression, e.g. transpose or "
                 "'^gemm_.*_kernel$'");
  add_number_option(sub, "-s,--launch-skip", r.launch_skip,
                    "launches to let pass before profiling, counted over the launches that pass the filters in "
                    "every process",
                    number_rule::integer(0, 9e15));
  add_number_option(sub, "-c,--launch-count", r.launch_count,
                    "launches to profile after that; 0 (the default): every one that passes",
                    number_rule::integer(0, 9e15));
  sub.add_option("--nvtx-include", r.nvtx_include,
                 "profile only launches inside an NVTX range: RANGE or DOMAIN@RANGE, * and ? as in a shell glob "
                 "(push/pop ranges of the launching thread, start/end ranges of the process; repeatable: any of them)")
      ->allow_extra_args(false);
  sub.add_option(
         "--metrics", o->metrics,
         "a metric set (quick: one pass, no replay; bank_conflicts: as `run`, 2 passes with memory saved and restored; access_kinds; duration) or CUPTI names separated by commas")
      ->capture_default_str();
  sub.add_option("--target-processes", o->target_processes,
                 "all: every process of the program that uses CUDA (torchrun workers, subprocesses); "
                 "application-only: the program's own process alone")
      ->check(CLI::IsMember({"all", "application-only"}))
      ->capture_default_str();
  sub.add_option("--cache-control", o->cache_control,
                 "all: empty the device's L2 cache before each profiled launch, as `run` and Nsight Compute do by "
                 "default (a read of twice its size, in memory of bankbench's own; the program's is not touched); "
                 "none: profile the launch on the cache as the program left it")
      ->check(CLI::IsMember({"all", "none"}))
      ->capture_default_str();
  add_number_option(sub, "--time-limit", r.time_limit_s,
                    "seconds the program may run; then it and its children are stopped (SIGTERM, SIGKILL 5 s later) "
                    "and the run is kept as interrupted",
                    number_rule::real(0.001, 86400 * 7, "seconds"));
  sub.add_option("-n,--name", r.name,
                 "the name the run is stored under (what `compare`, `regress` and `history` match on); default: "
                 "the script or program's file name");
  sub.footer("The program's output is its own, and so is its exit code when it fails: bankbench exits with it. "
             "Otherwise: 0 when at least one launch was profiled, 1 when none was (the message lists what was "
             "launched), 3 when counters cannot be read (permission, another profiler), 4 for the database. "
             "Kernels launched inside CUDA graphs are counted as graph launches, not profiled. docs/attach.md.");
  return [o, &global] {
    auto req = o->request;
    resolve_metrics(o->metrics, req);
    req.application_only = o->target_processes == "application-only";
    req.flush_l2 = o->cache_control == "all";
    req.db_path = global.db;
    req.command_line = global.command_line;
    req.verbosity = global.verbosity;
    return attach::attach(req);
  };
}

} // namespace bb::cli
