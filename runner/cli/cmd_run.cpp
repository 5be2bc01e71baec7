// bankbench run [FILE|DIR...]: verify, profile and time every configuration; store each as it ends.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <functional>
#include <map>
#include <optional>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "cli/commands.hpp"
#include "cli/experiment_files.hpp"
#include "cli/model_backend.hpp"
#include "cli/run_records.hpp"
#include "common/error.hpp"
#include "common/host_info.hpp"
#include "common/sha256.hpp"
#include "launch/nvml.hpp"
#include "launch/profiler_warmup.hpp"
#include "query/show.hpp"
#include "registry/registry.hpp"

namespace bb::cli {

namespace {

struct run_options {
  std::vector<std::string> inputs{"experiments"};
  int device = 0;
  std::string backend = "cupti"; ///< cupti: measure on the GPU; model: predict, no GPU needed
  bool no_counters = false;
  bool dry_run = false;
  int samples = 0; ///< 0: as the experiment file says
  int warmup = -1; ///< -1: as the experiment file says
  std::string command_line;
};

std::atomic<bool> g_interrupted{false};
extern "C" void on_sigint(int) { g_interrupted.store(true); }

/// Where the wall time of a run goes; kernels under 100 us are summed apart, since that is the
/// case the profiling-cost target speaks of.
struct cost_totals {
  struct sums {
    std::size_t configurations = 0;
    double setup_ms = 0, verify_ms = 0, counter_ms = 0, timing_ms = 0;
    void add(const launch::config_result& r) {
      ++configurations;
      setup_ms += r.setup_ms;
      verify_ms += r.verify_ms;
      counter_ms += r.counter_ms;
      timing_ms += r.timing_ms;
    }
    [[nodiscard]] std::string per_configuration() const {
      const double n = static_cast<double>(std::max<std::size_t>(configurations, 1));
      return fmt::format("setup {:.1f} ms, verify {:.1f} ms, counter pass {:.2f} ms, timing pass {:.2f} ms",
                         setup_ms / n, verify_ms / n, counter_ms / n, timing_ms / n);
    }
  };
  sums all, short_kernels;
};

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string short_result(const launch::config_result& r, std::size_t failed_expectations) {
  if (r.status != "ok") return r.status + ": " + r.reason;
  std::string s = "ok";
  if (!r.ranges.empty()) {
    if (auto wf = observed_value(r.ranges, r.smem_access_bytes, "load_wavefronts_per_request"))
      s += fmt::format("  ld {:.2f} wf/req", *wf);
  }
  if (!r.samples_ns.empty()) s += fmt::format("  {:.2f} us", median_of(r.samples_ns) / 1e3);
  if (failed_expectations > 0) s += fmt::format("  {} expectation(s) FAILED", failed_expectations);
  s += fmt::format("  (counters {:.1f} ms, timing {:.1f} ms)", r.counter_ms, r.timing_ms);
  return s;
}

store::run_record run_record_of(const config::experiment& e, const run_options& o) {
  store::run_record r;
  r.started_at = store::utc_now_iso8601();
  r.host = host_name();
  const auto dir = std::filesystem::path(e.path).parent_path().string();
  const auto git = git_state_of(dir);
  r.git_commit = git.commit;
  r.git_dirty = git.dirty;
  r.bankbench_version = BB_VERSION;
  r.experiment_name = e.name;
  r.experiment_path = e.path;
  r.experiment_text = e.text;
  r.experiment_sha256 = sha256_hex(e.text);
  r.command_line = o.command_line;
  r.metric_set = o.no_counters && o.backend != "model" ? "none" : e.metric_set;
  if (!o.no_counters || o.backend == "model") r.metrics = e.metrics;
  r.seed = e.seed;
  r.warmup = o.warmup >= 0 ? o.warmup : e.repeat.warmup;
  r.samples = o.samples > 0 ? o.samples : e.repeat.samples;
  return r;
}

/// Measures (GPU) or predicts (model) one configuration.
using config_runner = std::function<launch::config_result(const config::experiment&, const config::configuration&,
                                                          const variant_info&, const launch::exec_options&)>;

/// Runs one experiment's configurations; returns how many failed or missed an expectation.
std::size_t run_experiment(const config::experiment& e, store::database& db, std::int64_t gpu_id,
                           int sm_clock_max_mhz, const config_runner& runner, const profile::session* counters,
                           const run_options& o, cost_totals& cost, std::int64_t& run_id) {
  const auto configs = config::expand(e);
  const auto record = run_record_of(e, o);
  run_id = db.begin_run(gpu_id, record);
  spdlog::info("run {}: {} ({} configurations) -> {}", run_id, e.path, configs.size(), db.path());
  std::size_t failures = 0;
  launch::exec_options x;
  x.warmup = record.warmup;
  x.samples = record.samples;
  x.counter_launches = e.repeat.counter_launches;
  for (const auto& cfg : configs) {
    if (g_interrupted.load()) break;
    const variant_info* v = registry::instance().find_variant(e.family, cfg.variant);
    const std::string label = e.family + "/" + cfg.variant + " " + config::describe_params(cfg.params);
    x.nvtx_name = e.name + "/" + cfg.variant + "/" + config::describe_params(cfg.params);
    const auto started = store::utc_now_iso8601();
    const auto r = runner(e, cfg, *v, x);
    auto rec = configuration_record_of(e, cfg, r, counters, sm_clock_max_mhz);
    rec.started_at = started;
    rec.finished_at = store::utc_now_iso8601();
    db.add_configuration(run_id, rec);

    std::size_t failed_expectations = 0;
    for (const auto& ex : rec.expectations) failed_expectations += ex.passed ? 0 : 1;
    if (r.status != "ok" || failed_expectations > 0) ++failures;
    cost.all.add(r);
    if (!r.samples_ns.empty() && median_of(r.samples_ns) < 100e3) cost.short_kernels.add(r);
    spdlog::info("[{}/{}] {}  {}", cfg.index + 1, configs.size(), label, short_result(r, failed_expectations));
  }
  db.finish_run(run_id, g_interrupted.load() ? "interrupted" : "completed");
  return failures;
}

int run_run(run_options& o, const global_options& g) {
  const auto experiments = load_all(experiment_files(o.inputs));
  if (o.dry_run) {
    for (const auto& e : experiments)
      for (const auto& c : config::expand(e))
        std::cout << e.path << ": " << e.family << "/" << c.variant << " " << config::describe_params(c.params) << "\n";
    return 0;
  }
  std::optional<store::database> db;
  store::gpu_record gpu;
  int sm_clock_max_mhz = 0;
  config_runner runner;
  // Every metric list is checked against the chip before any kernel runs.
  std::map<std::vector<std::string>, std::unique_ptr<profile::session>> sessions;
  if (o.backend == "model") {
    gpu = model_gpu_record();
    db.emplace(store::database::open(g.db));
    runner = [](const config::experiment& e, const config::configuration& c, const variant_info& v,
                const launch::exec_options&) { return predict_configuration(e, c, v); };
  } else {
    const auto device = launch::open_device(o.device); // no GPU: fail before creating any file
    db.emplace(store::database::open(g.db));
    launch::nvml::instance().bind(device.uuid);
    gpu = gpu_record_of(device);
    sm_clock_max_mhz = device.sm_clock_max_mhz;
    if (!o.no_counters) {
      const auto t0 = std::chrono::steady_clock::now();
      for (const auto& e : experiments)
        if (!sessions.count(e.metrics)) {
          sessions[e.metrics] = profile::session::create(o.device, e.metrics);
          launch::warm_up_profiler(*sessions[e.metrics]);
        }
      gpu.chip = sessions.begin()->second->chip();
      spdlog::debug("profiler set up in {:.0f} ms ({} pass(es) for the first metric list)",
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(),
                    sessions.begin()->second->passes());
    }
    spdlog::info("GPU {}: {} ({}{}), driver {}, CUDA {}.{}", device.ordinal, device.name,
                 gpu.chip.empty() ? "" : gpu.chip + ", ", fmt::format("sm_{}{}", device.cc_major, device.cc_minor),
                 device.driver_version.empty() ? "?" : device.driver_version, device.cuda_driver_version / 1000,
                 device.cuda_driver_version % 1000 / 10);
    runner = [&sessions, &o](const config::experiment& e, const config::configuration& c, const variant_info& v,
                             const launch::exec_options& x) {
      auto* counters = o.no_counters ? nullptr : sessions.at(e.metrics).get();
      return launch::execute(v, c.params, e.seed, x, counters);
    };
  }
  const std::int64_t gpu_id = db->upsert_gpu(gpu);

  g_interrupted.store(false);
  auto previous = std::signal(SIGINT, on_sigint);
  cost_totals cost;
  std::size_t failures = 0;
  std::vector<std::int64_t> run_ids;
  const auto t0 = std::chrono::steady_clock::now();
  for (const auto& e : experiments) {
    if (g_interrupted.load()) break;
    std::int64_t run_id = 0;
    const profile::session* counters = sessions.count(e.metrics) ? sessions.at(e.metrics).get() : nullptr;
    failures += run_experiment(e, *db, gpu_id, sm_clock_max_mhz, runner, counters, o, cost, run_id);
    run_ids.push_back(run_id);
  }
  std::signal(SIGINT, previous);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  for (const auto id : run_ids) query::show_run(*db, id, std::cout, query::output_format::table);
  if (cost.all.configurations > 0)
    spdlog::info("{} configurations in {:.2f} s; per configuration: {}", cost.all.configurations, wall_s,
                 cost.all.per_configuration());
  if (cost.short_kernels.configurations > 0)
    spdlog::info("{} with kernels under 100 us; per configuration: {}", cost.short_kernels.configurations,
                 cost.short_kernels.per_configuration());
  if (g_interrupted.load()) {
    spdlog::warn("interrupted: finished configurations are stored; the run is marked interrupted");
    return static_cast<int>(exit_code::interrupted);
  }
  return failures > 0 ? static_cast<int>(exit_code::failures) : 0;
}

} // namespace

run_fn setup_run(CLI::App& sub, const global_options& global) {
  auto o = std::make_shared<run_options>();
  sub.add_option("inputs", o->inputs, "experiment files or folders")->capture_default_str();
  sub.add_option("-d,--device", o->device, "CUDA device ordinal")->capture_default_str();
  sub.add_option("-b,--backend", o->backend, "cupti: measure on the GPU; model: predict from access plans, no GPU")
      ->check(CLI::IsMember({"cupti", "model"}))
      ->capture_default_str();
  sub.add_flag("--no-counters", o->no_counters,
               "time and verify only, without CUPTI (e.g. when running under ncu)");
  sub.add_flag("-n,--dry-run", o->dry_run, "list the configurations and exit; needs no GPU");
  sub.add_option("--samples", o->samples, "timing samples per configuration (overrides the file)")
      ->check(CLI::Range(1, 100000));
  sub.add_option("--warmup", o->warmup, "warm-up launches before timing (overrides the file)")
      ->check(CLI::Range(0, 100000));
  return [o, &global] {
    o->command_line = global.command_line;
    return run_run(*o, global);
  };
}

} // namespace bb::cli
