#include "cli/run_session.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <utility>

#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "cli/model_backend.hpp"
#include "cli/resume_check.hpp"
#include "cli/run_records.hpp"
#include "cli/run_shares.hpp"
#include "common/error.hpp"
#include "common/host_info.hpp"
#include "common/sha256.hpp"
#include "launch/device_memory.hpp"
#include "launch/nvml.hpp"
#include "launch/profiler_warmup.hpp"
#include "query/show.hpp"
#include "registry/registry.hpp"
#include "store/resume.hpp"
#include "source/variants.hpp"
#include "store/samples.hpp"
#include "store/sessions.hpp"

namespace bb::build {
extern const char sources_sha256[];
}

namespace bb::cli {

std::atomic<bool> g_interrupted{false};
std::atomic<int> g_stop_signal{0};

namespace {

extern "C" void on_sigint(int sig) {
  int none = 0;
  g_stop_signal.compare_exchange_strong(none, sig);
  g_interrupted.store(true);
}

constexpr int k_stop_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

/// The median the database stores for `r` (the fastest placement's).
double median_of(const launch::config_result& r) {
  return store::fastest_placement_median(r.samples_ns, r.sample_placement);
}

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
  /// Peak resident memory, and device memory in use after each configuration released its buffers.
  std::uint64_t rss_peak = 0, device_first = 0, device_last = 0, device_max = 0;
  void add_resources(const launch::config_result& r) {
    rss_peak = std::max(rss_peak, r.host_rss_peak_bytes);
    if (r.device_used_bytes == 0) return;
    if (device_first == 0) device_first = r.device_used_bytes;
    device_last = r.device_used_bytes;
    device_max = std::max(device_max, r.device_used_bytes);
  }
  [[nodiscard]] std::string resources() const {
    std::string s = fmt::format("peak host memory {:.0f} MiB; device memory in use between configurations: first "
                                "{:.0f} MiB, last {:.0f} MiB, most {:.0f} MiB",
                                rss_peak / 1048576.0, device_first / 1048576.0, device_last / 1048576.0,
                                device_max / 1048576.0);
    if (const auto pool = launch::pool_reserved_peak_bytes(); pool > 0)
      s += fmt::format("; the buffer pool held at most {:.0f} MiB", pool / 1048576.0);
    return s;
  }
};

std::string short_result(const launch::config_result& r, std::size_t failed_expectations, bool model) {
  if (r.status != "ok") return r.status + ": " + r.reason;
  std::string s = "ok";
  if (!r.ranges.empty())
    if (auto wf = observed_value(r.ranges, r.smem_access_bytes, "load_wavefronts_per_request"))
      s += fmt::format("  ld {:.2f} wf/req", *wf);
  if (!r.samples_ns.empty()) s += fmt::format("  {:.2f} us", median_of(r) / 1e3);
  if (failed_expectations > 0) s += fmt::format("  {} expectation(s) FAILED", failed_expectations);
  if (model) return s + "  (predicted)"; // the model neither profiles nor times
  s += fmt::format("  (counters {:.1f} ms, timing {:.1f} ms)", r.counter_ms, r.timing_ms);
  return s;
}

store::run_record run_record_of(const config::experiment& e, const run_options& o, std::int64_t session_id) {
  store::run_record r;
  r.session_id = session_id;
  r.pid = static_cast<std::int64_t>(getpid());
  r.sources_sha256 = build::sources_sha256;
  r.fingerprint = run_fingerprint(e, o);
  r.started_at = store::utc_now_iso8601();
  r.host = host_name();
  r.pid = ::getpid();
  const auto git = git_state_of(std::filesystem::path(e.path).parent_path().string());
  r.git_commit = git.commit;
  r.git_dirty = git.dirty;
  r.bankbench_version = BB_VERSION;
  r.experiment_name = e.name;
  r.experiment_path = e.path;
  r.experiment_text = e.text;
  r.experiment_sha256 = sha256_hex(e.text);
  r.command_line = o.command_line;
  const bool counters = o.backend == "model" || (!o.no_counters && !o.launch_once);
  r.metric_set = counters ? e.metric_set : "none";
  if (counters) r.metrics = e.metrics;
  r.seed = e.seed;
  r.warmup = o.warmup >= 0 ? o.warmup : e.repeat.warmup;
  r.samples = o.samples > 0 ? o.samples : e.repeat.samples;
  if ((o.launch_once || o.no_timing) && o.backend != "model") r.warmup = r.samples = 0;
  record_run_environment(r, o);
  return r;
}

const variant_info* source_variant(const std::vector<variant_info>& sources, const std::string& name) {
  for (const auto& v : sources)
    if (v.name == name) return &v;
  return nullptr;
}

/// Measures (GPU) or predicts (model) an experiment's configurations, one or several at a time:
/// add() takes one, finish() gives back the results of those added since the last finish().
class config_runner {
public:
  virtual ~config_runner() = default;
  virtual void add(std::size_t tag, const config::configuration& c, const variant_info& v,
                   const std::string& nvtx_name) = 0;
  /// Whether finish() should come before the next add().
  [[nodiscard]] virtual bool full() const = 0;
  /// `before_timing(tag)` is called as the timing pass of the configuration added with `tag` begins.
  virtual std::vector<launch::group::finished> finish(const std::function<void(std::size_t)>& before_timing) = 0;
};

/// The GPU: configurations grouped as launch::group decides.
class gpu_runner final : public config_runner {
public:
  gpu_runner(const config::experiment& e, const launch::exec_options& x, profile::session* counters)
      : m_seed(e.seed), m_group(x, counters) {}
  void add(std::size_t tag, const config::configuration& c, const variant_info& v, const std::string& nvtx_name) override {
    m_group.add(tag, v, c.params, m_seed, nvtx_name);
  }
  [[nodiscard]] bool full() const override { return m_group.full(); }
  std::vector<launch::group::finished> finish(const std::function<void(std::size_t)>& before_timing) override {
    return m_group.finish(before_timing);
  }

private:
  std::uint64_t m_seed;
  launch::group m_group;
};

/// The bank model: each configuration is predicted as it is added.
class model_runner final : public config_runner {
public:
  explicit model_runner(const config::experiment& e) : m_experiment(e) {}
  void add(std::size_t tag, const config::configuration& c, const variant_info& v, const std::string&) override {
    m_done.push_back({tag, predict_configuration(m_experiment, c, v)});
  }
  [[nodiscard]] bool full() const override { return !m_done.empty(); }
  std::vector<launch::group::finished> finish(const std::function<void(std::size_t)>&) override {
    return std::exchange(m_done, {});
  }

private:
  const config::experiment& m_experiment;
  std::vector<launch::group::finished> m_done;
};

struct backend {
  std::int64_t session_id = 0;
  store::gpu_record gpu;
  int sm_clock_max_mhz = 0;
  bool model = false;
  // Every metric list is checked against the chip before any kernel runs.
  std::map<std::vector<std::string>, std::unique_ptr<profile::session>> sessions;

  [[nodiscard]] std::unique_ptr<config_runner> runner_for(const config::experiment& e, const launch::exec_options& x,
                                                          const run_options& o) const {
    if (model) return std::make_unique<model_runner>(e);
    auto* counters = o.no_counters || o.launch_once ? nullptr : sessions.at(e.metrics).get();
    return std::make_unique<gpu_runner>(e, x, counters);
  }
};

void open_gpu_backend(backend& b, const std::vector<config::experiment>& experiments, const run_options& o,
                      const launch::device_info& device) {
  launch::use_allocator(launch::allocator_named(o.allocator));
  launch::nvml::instance().bind(device.uuid);
  b.gpu = gpu_record_of(device);
  b.sm_clock_max_mhz = device.sm_clock_max_mhz;
  if (!o.no_counters && !o.launch_once) {
    const auto t0 = std::chrono::steady_clock::now();
    for (const auto& e : experiments)
      if (!b.sessions.count(e.metrics)) {
        b.sessions[e.metrics] = profile::session::create(o.device, e.metrics);
        if (const auto& absent = b.sessions[e.metrics]->absent(); !absent.empty())
          spdlog::info("{}: {} counter(s) of metric set {} not on chip {}, left out (`bankbench list metrics`)", e.path,
                       absent.size(), e.metric_set, b.sessions[e.metrics]->chip());
        launch::warm_up_profiler(*b.sessions[e.metrics], o.cache_control == "all");
      }
    b.gpu.chip = b.sessions.begin()->second->chip();
    spdlog::debug("profiler set up in {:.0f} ms ({} pass(es) for the first metric list)",
                  std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(),
                  b.sessions.begin()->second->passes());
  }
  spdlog::info("GPU {}: {} ({}sm_{}{}), driver {}, CUDA {}.{}", device.ordinal, device.name,
               b.gpu.chip.empty() ? "" : b.gpu.chip + ", ", device.cc_major, device.cc_minor,
               device.driver_version.empty() ? "?" : device.driver_version, device.cuda_driver_version / 1000,
               device.cuda_driver_version % 1000 / 10);
}

/// Runs one experiment's remaining configurations; returns how many failed or missed an
/// expectation. Sets `context_lost` when the CUDA context broke and the process must end.
std::size_t run_experiment(std::size_t index, const config::experiment& e, store::database& db,
                           std::int64_t gpu_id, backend& b, const run_options& o, const resume_point& start,
                           session_events* events, cost_totals& cost, std::int64_t& run_id, bool& context_lost,
                           std::size_t& not_modelled) {
  const auto configs = config::expand(e);
  const auto record = run_record_of(e, o, b.session_id);
  run_id = start.run_ids[index];
  if (run_id != 0) {
    try {
      check_resume_identity(db, run_id, b.gpu, record.fingerprint);
    } catch (const usage_error&) {
      db.finish_run(run_id, "interrupted"); // reopened for nothing: left resumable as it was
      throw;
    }
  }
  if (run_id == 0) {
    run_id = db.begin_run(gpu_id, record);
    if (events != nullptr) events->run_begun(index, run_id);
  }
  spdlog::info("run {}: {} ({} configurations) -> {}", run_id, e.path, configs.size(), db.path());
  const profile::session* counters = b.sessions.count(e.metrics) ? b.sessions.at(e.metrics).get() : nullptr;
  std::size_t failures = 0;
  launch::exec_options x;
  x.warmup = record.warmup;
  x.samples = record.samples;
  x.placements = o.placements > 0 ? o.placements : e.repeat.placements;
  x.min_sample_ns = o.min_sample_us * 1e3;
  x.counter_launches = e.repeat.counter_launches;
  x.cache_control = o.cache_control;
  x.launch_once = o.launch_once;
  const auto runner = b.runner_for(e, x, o);
  const std::vector<variant_info> sources = source::variants_of(e); // source variants: compiled as they run
  struct waiting {
    const config::configuration* cfg;
    std::string label;
    std::string started_at;
  };
  std::vector<waiting> added; // by tag: configurations whose results finish() has not given yet
  auto store_finished = [&] {
    const auto before_timing = [&](std::size_t tag) {
      if (events != nullptr) events->configuration_timing(index, static_cast<int>(added[tag].cfg->index));
    };
    for (auto& [tag, r] : runner->finish(before_timing)) {
      const waiting& w = added[tag];
      auto rec = configuration_record_of(e, *w.cfg, r, counters, b.sm_clock_max_mhz);
      rec.started_at = w.started_at;
      rec.finished_at = store::utc_now_iso8601();
      db.add_configuration(run_id, rec);
      const int seq = static_cast<int>(w.cfg->index);
      if (events != nullptr) events->configuration_stored(index, seq);
      context_lost = context_lost || r.context_lost;

      std::size_t failed_expectations = 0;
      for (const auto& ex : rec.expectations) failed_expectations += ex.passed ? 0 : 1;
      // Not modelled is what the model cannot do, not a failure: the run's note says so.
      if (r.status == "not_modelled") ++not_modelled;
      else if (r.status != "ok" || failed_expectations > 0) ++failures;
      cost.all.add(r);
      cost.add_resources(r);
      if (!r.samples_ns.empty() && median_of(r) < 100e3) cost.short_kernels.add(r);
      spdlog::info("[{}/{}] {}  {}", w.cfg->index + 1, configs.size(), w.label, short_result(r, failed_expectations, b.model));
    }
  };
  for (const auto& cfg : configs) {
    if (g_interrupted.load() || context_lost) break;
    const int seq = static_cast<int>(cfg.index);
    if (start.done[index].count(seq) != 0) continue;
    const variant_info* v = source_variant(sources, cfg.variant);
    if (v == nullptr) v = registry::instance().find_variant(e.family, cfg.variant);
    const std::string params = config::describe_params(cfg.params);
    if (events != nullptr) events->configuration_started(index, seq);
    added.push_back({&cfg, e.family + "/" + cfg.variant + " " + params, store::utc_now_iso8601()});
    runner->add(added.size() - 1, cfg, *v, e.name + "/" + cfg.variant + "/" + params);
    if (runner->full()) store_finished();
  }
  store_finished(); // what an interruption or the end of the experiment left in the group
  if (!context_lost) db.finish_run(run_id, g_interrupted.load() ? "interrupted" : "completed");
  return failures;
}

} // namespace

void finish_session(const global_options& g, const resume_point& start, int exit_code) {
  if (start.session_id == 0) return; // nothing was begun (no GPU, bad input): nothing to close
  const std::string status = exit_code == 0 || exit_code == static_cast<int>(exit_code::failures) ? "completed"
                             : exit_code >= 128                                                  ? "interrupted"
                                                                                                 : "failed";
  std::string counts;
  bool all_ok = false;
  try {
    auto db = store::database::open(g.db);
    db.finish_session(start.session_id, status, exit_code);
    const auto c = store::count_session(db, start.session_id);
    const auto ok = c.by_status.find("ok");
    all_ok = ok != c.by_status.end() && ok->second == c.configurations();
    std::vector<std::string> parts;
    for (const auto& [name, n] : c.by_status) parts.push_back(fmt::format("{} {}", n, name));
    counts = fmt::format("{} run{}, {} configurations ({})", c.runs, c.runs == 1 ? "" : "s", c.configurations(),
                         parts.empty() ? "none stored" : fmt::format("{}", fmt::join(parts, ", ")));
    if (c.failed_expectations > 0)
      counts += fmt::format(", {} expectation{} not met", c.failed_expectations, c.failed_expectations == 1 ? "" : "s");
  } catch (const std::exception& e) {
    counts = fmt::format("its results could not be counted: {}", e.what());
  }
  std::string reason;
  switch (exit_code) {
  case 0:
    reason = all_ok ? "everything ran, verified and met its expectations"
                    : "nothing failed (configurations not ok were skipped, not modelled or have no check)";
    break;
  case static_cast<int>(exit_code::failures): reason = "a configuration failed or an expectation was not met"; break;
  case static_cast<int>(exit_code::interrupted):
    reason = "interrupted; `bankbench run --resume RUN` completes a run"; break;
  default: reason = exit_code > 128 ? "stopped by a signal" : "stopped by an error (above)";
  }
  // Not through the logger: this line is the run's verdict and stays under -q.
  std::fflush(stdout);
  fmt::print(stderr, "bankbench: session {}: {} -> exit {}: {}\n", start.session_id, counts, exit_code, reason);
}

stop_signals::stop_signals() {
  struct sigaction sa{};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  for (const int sig : k_stop_signals) sigaction(sig, &sa, nullptr);
}

stop_signals::~stop_signals() {
  for (const int sig : k_stop_signals) std::signal(sig, SIG_DFL);
}

int interrupted_exit_code() {
  const int sig = g_stop_signal.load();
  return sig > 0 ? 128 + sig : static_cast<int>(exit_code::interrupted);
}

std::string resume_command(const global_options& g, const run_options& o, std::int64_t run_id) {
  return fmt::format("bankbench --db '{}' run{} --resume {}", g.db, o.backend == "model" ? " --backend model" : "",
                     run_id);
}

void print_run_tables(const global_options& g, const std::vector<std::int64_t>& run_ids) {
  const auto db = store::database::open_existing(g.db);
  for (const auto id : run_ids)
    if (id != 0) query::show_run(db, id, std::cout, query::output_format::table);
}

std::string run_fingerprint(const config::experiment& e, const run_options& o) {
  // Timing options do not change counters; how the counter pass runs does.
  const bool model = o.backend == "model";
  // Source variants add their .cu files and every header they include.
  return sha256_hex(fmt::format("sources {}\nexperiment {}\nsource variants {}\nbackend {}\ncache_control {}\n"
                                "allocator {}\n",
                                build::sources_sha256, sha256_hex(e.text), source::source_fingerprint(e), o.backend,
                                model ? "-" : o.cache_control, model ? "-" : o.allocator));
}

int run_in_process(const std::vector<config::experiment>& experiments, const run_options& o,
                   const global_options& g, resume_point& start, session_events* events,
                   bool print_tables) {
  std::optional<store::database> db;
  backend b;
  if (o.backend == "model") {
    b.gpu = model_gpu_record();
    db.emplace(store::database::open(g.db));
    b.model = true;
  } else {
    const auto device = launch::open_device(o.device); // no GPU: fail before creating any file
    db.emplace(store::database::open(g.db));
    open_gpu_backend(b, experiments, o, device);
  }
  const std::int64_t gpu_id = db->upsert_gpu(b.gpu);
  if (start.session_id == 0) {
    store::session_record session;
    session.host = host_name();
    session.pid = static_cast<std::int64_t>(getppid() > 1 && events != nullptr ? getppid() : getpid());
    session.command_line = o.command_line;
    start.session_id = db->begin_session(session);
    if (events != nullptr) events->session_begun(start.session_id);
    for (const auto run_id : start.run_ids) // a resumed run from before sessions joins this one
      if (run_id != 0) store::adopt_run(*db, run_id, start.session_id);
  }
  b.session_id = start.session_id;

  std::optional<stop_signals> handlers;
  handlers.emplace();
  cost_totals cost;
  std::size_t failures = 0, not_modelled = 0;
  bool context_lost = false;
  std::vector<std::int64_t> run_ids;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < experiments.size() && !g_interrupted.load() && !context_lost; ++i) {
    if (nothing_to_do(experiments, i, start)) continue; // a share without any of its configurations
    std::int64_t run_id = 0;
    try {
      failures += run_experiment(i, experiments[i], *db, gpu_id, b, o, start, events, cost, run_id, context_lost,
                                 not_modelled);
    } catch (const store_error& e) {
      // A failed commit (disk full, I/O error, the file deleted or replaced) ends the session: the
      // run is marked interrupted where the file still takes it, so --resume completes it.
      if (run_id == 0) throw;
      try {
        db->finish_run(run_id, "interrupted");
      } catch (const store_error&) {
      }
      throw store_error(fmt::format("{}\nrun {} stopped; what was stored before is kept; once the cause is fixed, "
                                    "resume with: {}",
                                    e.what(), run_id, resume_command(g, o, run_id)));
    }
    run_ids.push_back(run_id);
    start.run_ids[i] = run_id;
  }
  handlers.reset();
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  if (print_tables)
    for (const auto id : run_ids) query::show_run(*db, id, std::cout, query::output_format::table);
  if (not_modelled > 0)
    spdlog::info("note: {} configuration{} not modelled (variants without an access plan, such as reference/memcpy); "
                 "they are stored as not_modelled, and a GPU run measures them",
                 not_modelled, not_modelled == 1 ? "" : "s");
  if (b.model && cost.all.configurations > 0)
    spdlog::info("{} configurations predicted in {:.2f} s", cost.all.configurations, wall_s);
  else if (cost.all.configurations > 0)
    spdlog::info("{} configurations in {:.2f} s; per configuration: {}", cost.all.configurations, wall_s,
                 cost.all.per_configuration());
  if (cost.short_kernels.configurations > 0)
    spdlog::info("{} with kernels under 100 us; per configuration: {}", cost.short_kernels.configurations,
                 cost.short_kernels.per_configuration());
  if (cost.rss_peak > 0) spdlog::info("resources: {}", cost.resources());
  if (context_lost) return k_exit_context_lost;
  if (g_interrupted.load()) {
    const int sig = g_stop_signal.load();
    spdlog::warn("interrupted{}: finished configurations are stored; the run is marked interrupted",
                 sig > 0 ? fmt::format(" by {}", sigabbrev_np(sig) != nullptr ? std::string("SIG") + sigabbrev_np(sig)
                                                                                : std::to_string(sig))
                         : "");
    for (const auto id : run_ids)
      if (id != 0) spdlog::warn("resume run {} with: {}", id, resume_command(g, o, id));
    if (run_ids.size() < experiments.size())
      spdlog::warn("{} experiment(s) not begun; run their files again", experiments.size() - run_ids.size());
    return interrupted_exit_code();
  }
  return failures > 0 ? static_cast<int>(exit_code::failures) : 0;
}

} // namespace bb::cli
