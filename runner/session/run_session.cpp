#include "runner/session/run_session.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <atomic>
#include <exception>
#include <future>
#include <map>
#include <optional>
#include <set>
#include <thread>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "runner/common/error.hpp"
#include "runner/common/host_info.hpp"
#include "runner/common/path_text.hpp"
#include "runner/common/sha256.hpp"
#include "runner/launch/device_memory.hpp"
#include "runner/launch/profiler_warmup.hpp"
#include "runner/registry/registry.hpp"
#include "runner/session/model_backend.hpp"
#include "runner/session/resume_check.hpp"
#include "runner/session/run_records.hpp"
#include "runner/session/run_shares.hpp"
#include "runner/source/parallel_compile.hpp"
#include "runner/source/variants.hpp"
#include "runner/store/resume.hpp"
#include "runner/store/samples.hpp"
#include "runner/store/lines.hpp"
#include "runner/store/sessions.hpp"

namespace bb::build {
extern const char sources_sha256[];
}

namespace bb::session {

std::atomic<bool> g_interrupted{false};
std::atomic<int> g_stop_signal{0};

namespace {

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

std::string short_result(const launch::config_result& r, const store::configuration_record& rec,
                         std::size_t failed_expectations, bool model) {
  if (r.status != config_status::ok) {
    // A compile log is printed once, as the kernel fails to compile; each configuration it costs
    // shows its first line (the database keeps the whole reason).
    const auto eol = r.reason.find('\n');
    if (eol == std::string::npos) return name_of(r.status) + (": " + r.reason);
    std::string first = r.reason.substr(0, eol);
    if (!first.empty() && first.back() == ':') first.pop_back();
    return name_of(r.status) + (": " + first + " (the log is above)");
  }
  std::string s = name_of(config_status::ok);
  if (!r.ranges.empty())
    if (auto wf = observed_value(rec, "load_wavefronts_per_request")) s += fmt::format("  ld {:.2f} wf/req", *wf);
  if (!r.samples_ns.empty()) s += fmt::format("  {:.2f} us", median_of(r) / 1e3);
  if (failed_expectations > 0) s += fmt::format("  {} expectation(s) FAILED", failed_expectations);
  if (model) return s + "  (predicted)"; // the model neither profiles nor times
  s += fmt::format("  (counters {:.1f} ms, timing {:.1f} ms)", r.counter_ms, r.timing_ms);
  return s;
}

store::run_record run_record_of(const config::experiment& e, const run_plan& plan, std::int64_t session_id,
                                const git_state& git) {
  store::run_record r;
  r.session_id = session_id;
  r.pid = static_cast<std::int64_t>(getpid());
  r.sources_sha256 = build::sources_sha256;
  r.fingerprint = run_fingerprint(e, plan);
  r.started_at = store::utc_now_iso8601();
  r.host = host_name();
  r.pid = ::getpid();
  r.git_commit = git.commit;
  r.git_dirty = git.dirty;
  r.bankbench_version = BB_VERSION;
  r.experiment_name = e.name;
  r.experiment_path = e.path;
  r.experiment_text = e.text;
  r.experiment_sha256 = sha256_hex(e.text);
  r.command_line = plan.command_line;
  r.metric_set = plan.counts() ? e.metrics.set_name() : "none";
  if (plan.counts()) r.metrics = e.metrics.names();
  r.seed = e.seed;
  r.warmup = plan.warmup >= 0 ? plan.warmup : e.repeat.warmup;
  r.samples = plan.samples > 0 ? plan.samples : e.repeat.samples;
  if (!plan.model() && !plan.passes.timing) r.warmup = r.samples = 0;
  record_run_environment(r, plan);
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
  /// Per-line results of the configuration added with `tag`, once finished: the model's prediction
  /// for a source variant. The GPU's per-line pass runs after the run (lines_pass.hpp).
  virtual std::optional<store::line_collection> take_lines(std::size_t /*tag*/) { return std::nullopt; }
};

/// The GPU: configurations grouped as launch::group decides.
class gpu_runner final : public config_runner {
public:
  gpu_runner(const config::experiment& e, const launch::exec_options& x, profile::session* counters)
      : m_seed(e.seed), m_group(x, counters) {}
  void add(std::size_t tag, const config::configuration& c, const variant_info& v,
           const std::string& nvtx_name) override {
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

/// The bank model: configurations are predicted a batch at a time, on `threads` threads (each
/// prediction is independent of the others), and handed on in the order they were added.
class model_runner final : public config_runner {
public:
  /// `twins`: built-in variants from their code (--model-source code); nullptr: from their plans.
  model_runner(const config::experiment& e, std::uint64_t budget, code_twins* twins, unsigned threads)
      : m_experiment(e), m_budget(budget), m_twins(twins), m_threads(std::max(threads, 1u)) {}
  void add(std::size_t tag, const config::configuration& c, const variant_info& v, const std::string&) override {
    m_jobs.push_back({tag, &c, &v});
  }
  std::optional<store::line_collection> take_lines(std::size_t tag) override {
    const auto it = m_lines.find(tag);
    if (it == m_lines.end()) return std::nullopt;
    store::line_collection l = std::move(it->second);
    m_lines.erase(it);
    return l;
  }
  // A batch of a few configurations per thread: enough to keep every thread busy, small enough
  // that progress and an interruption come every few hundred milliseconds at most.
  [[nodiscard]] bool full() const override { return m_jobs.size() >= 4 * std::size_t{m_threads}; }
  std::vector<launch::group::finished> finish(const std::function<void(std::size_t)>&) override {
    std::vector<job> jobs = std::exchange(m_jobs, {});
    std::vector<outcome> out(jobs.size());
    std::atomic<std::size_t> next{0};
    const auto work = [&] {
      for (std::size_t i = next++; i < jobs.size(); i = next++) {
        try {
          out[i] = predict(jobs[i]);
        } catch (...) { // handed to this thread: a bad_alloc or a bug stops the run as in one thread
          out[i].failure = std::current_exception();
        }
      }
    };
    const std::size_t helpers = std::min<std::size_t>(m_threads, jobs.size()) - (jobs.empty() ? 0 : 1);
    std::vector<std::thread> pool;
    for (std::size_t t = 0; t < helpers; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    std::vector<launch::group::finished> done;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      if (out[i].failure) std::rethrow_exception(out[i].failure);
      if (m_twins != nullptr && m_experiment.find_source(jobs[i].variant->name) == nullptr)
        count_source(out[i].result, out[i].lines);
      if (out[i].lines.status != store::lines_status::unsupported) m_lines[jobs[i].tag] = std::move(out[i].lines);
      done.push_back({jobs[i].tag, std::move(out[i].result)});
    }
    return done;
  }
  /// --model-source code: how many built-in configurations came from their code, how many from
  /// their plans and why; "" otherwise.
  [[nodiscard]] std::string code_summary() const {
    if (m_twins == nullptr || m_from_code + m_from_plan == 0) return "";
    std::string s = fmt::format("{}: {} built-in configuration{} predicted from their code, {} from access plans",
                                m_experiment.name, m_from_code, m_from_code == 1 ? "" : "s", m_from_plan);
    std::size_t shown = 0;
    for (const auto& why : m_fallbacks)
      if (shown++ < 3) s += (shown == 1 ? " (" : "; ") + why;
    if (m_fallbacks.size() > 3) s += fmt::format("; {} more reasons", m_fallbacks.size() - 3);
    return m_fallbacks.empty() ? s : s + ")";
  }

private:
  struct job {
    std::size_t tag = 0;
    const config::configuration* cfg = nullptr;
    const variant_info* variant = nullptr;
  };
  struct outcome {
    launch::config_result result;
    store::line_collection lines;
    std::exception_ptr failure;
  };
  outcome predict(const job& j) const {
    outcome o;
    o.lines.status = store::lines_status::unsupported; // stays so for a prediction from an access plan
    o.result = m_twins != nullptr ? predict_from_code(m_experiment, *j.cfg, *j.variant, *m_twins, m_budget, &o.lines)
                                  : predict_configuration(m_experiment, *j.cfg, *j.variant, m_budget, &o.lines);
    return o;
  }

  const config::experiment& m_experiment;
  std::uint64_t m_budget;
  code_twins* m_twins;
  unsigned m_threads;
  std::size_t m_from_code = 0, m_from_plan = 0;
  std::set<std::string> m_fallbacks; ///< why not from the code, each once
  std::vector<job> m_jobs;

  void count_source(const launch::config_result& r, const store::line_collection& lines) {
    if (lines.status != store::lines_status::unsupported) {
      ++m_from_code;
      return;
    }
    static const std::string k_not_code = "not from its code: ";
    const auto at = r.reason.find(k_not_code);
    if (at == std::string::npos) return; // refused parameters: from neither
    if (r.status != config_status::not_modelled) ++m_from_plan;
    m_fallbacks.insert(r.reason.substr(at + k_not_code.size()));
  }
  std::map<std::size_t, store::line_collection> m_lines;
};

/// Where a session's counters come from: the GPU (its profiler sessions) or the bank model.
struct counter_source {
  store::gpu_record gpu;
  int sm_clock_max_mhz = 0;
  // Every metric list is checked against the chip before any kernel runs.
  std::map<metrics::metric_list, std::unique_ptr<profile::session>> sessions;
  std::set<const profile::session*> warmed; ///< those whose first profiled launch is behind them

  [[nodiscard]] const profile::session* session_for(const config::experiment& e) const {
    const auto it = sessions.find(e.metrics);
    return it == sessions.end() ? nullptr : it->second.get();
  }
};

/// Profiles an empty kernel in `s` once, before its first configuration: a range profiler's first
/// pass after it is enabled costs about 0.12 s (H100, H200), which no configuration should carry.
void warm_up(counter_source& b, profile::session& s, const run_plan& plan) {
  if (!b.warmed.insert(&s).second) return;
  const auto t0 = std::chrono::steady_clock::now();
  launch::warm_up_profiler(s, plan.cache_control == launch::cache_control::all);
  spdlog::debug("profiler of {} metric(s) warmed up in {:.0f} ms", s.metrics().size(),
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
}

void open_gpu(counter_source& b, const std::vector<config::experiment>& experiments, const run_plan& plan,
              const launch::device_info& device) {
  launch::use_allocator(plan.allocator);
  b.gpu = gpu_record_of(device);
  b.sm_clock_max_mhz = device.sm_clock_max_mhz;
  if (plan.passes.counters && !experiments.empty()) {
    const auto t0 = std::chrono::steady_clock::now();
    // Every metric list is checked against the chip now; only the first experiment's profiler is
    // warmed up now, each other one before its first experiment. One range profiler may be
    // enabled on a context at a time, so warming them all up front enabled each once more
    // (group_by_metric_list puts each list's experiments together).
    for (const auto& e : experiments) {
      auto& s = b.sessions[e.metrics];
      if (s) continue;
      s = profile::session::create(plan.cuda_ordinal(), e.metrics.names());
      spdlog::debug("metric set {}: {} counter(s) in {} pass(es); set up: {}", e.metrics.set_name(),
                    s->metrics().size(), s->passes(), s->last_breakdown());
      if (const auto& absent = s->absent(); !absent.empty())
        spdlog::info("{}: {} counter(s) of metric set {} not on chip {}, left out (`bankbench list metrics`)",
                     shown_path(e.path), absent.size(), e.metrics.set_name(), s->chip());
    }
    const auto created = std::chrono::steady_clock::now();
    profile::session& first = *b.sessions.at(experiments.front().metrics);
    warm_up(b, first, plan);
    b.gpu.chip = first.chip();
    spdlog::debug("profiler set up in {:.0f} ms ({} metric list(s) checked in {:.0f} ms; {} pass(es) for the first)",
                  std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(),
                  b.sessions.size(), std::chrono::duration<double, std::milli>(created - t0).count(), first.passes());
  }
  spdlog::info("GPU {}: {} ({}sm_{}{}), driver {}, CUDA {}.{}", plan.device, device.name,
               b.gpu.chip.empty() ? "" : b.gpu.chip + ", ", device.cc_major, device.cc_minor,
               device.driver_version.empty() ? "?" : device.driver_version, device.cuda_driver_version / 1000,
               device.cuda_driver_version % 1000 / 10);
}

/// What one experiment's run left.
struct experiment_result {
  std::int64_t run_id = 0;
  std::size_t failures = 0;     ///< configurations that failed or missed an expectation
  std::size_t not_modelled = 0; ///< configurations the model has no access plan for
  bool context_lost = false;    ///< the CUDA context broke: the process must end
};

/// A session of the engine: its database, where its counters come from, who hears of its
/// progress, and where its time went.
class active_session {
public:
  active_session(const std::vector<config::experiment>& experiments, const run_plan& plan, resume_point& start,
                 session_events* events)
      : m_experiments(experiments), m_plan(plan), m_start(start), m_events(events) {
    // `git status` walks the whole checkout (about 0.8 s in a fresh copy of this tree on a GPU
    // machine, where every file's stat data is new to the index): asked for every experiment
    // folder now, it runs while the GPU and its profiler sessions are set up.
    for (const auto& e : experiments)
      if (const auto dir = folder_of(e); m_git.count(dir) == 0)
        m_git.emplace(dir, std::async(std::launch::async, git_state_of, dir).share());
    if (plan.model()) {
      m_source.gpu = model_gpu_record();
      if (plan.model_source == model_source::code)
        m_twins.emplace(plan.code_twins.empty() ? default_code_twins_dir() : plan.code_twins);
      m_db.emplace(store::database::open(plan.db));
    } else {
      const auto t0 = std::chrono::steady_clock::now();
      const auto device = launch::open_device(plan.cuda_ordinal()); // no GPU: fail before creating any file
      spdlog::debug("GPU {} opened in {:.0f} ms", plan.device,
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      m_db.emplace(store::database::open(plan.db));
      open_gpu(m_source, experiments, plan, device);
    }
    m_gpu_id = m_db->upsert_gpu(m_source.gpu);
    if (start.session_id == 0) {
      start.session_id = events != nullptr ? events->open_session(*m_db, plan, start)
                                           : begin_session_row(*m_db, plan, start);
      if (events != nullptr) events->session_begun(start.session_id);
    }
  }

  [[nodiscard]] const cost_totals& cost() const { return m_cost; }

  /// Runs experiment `index`'s remaining configurations. A failed commit ends the session: the
  /// run is marked interrupted where the file still takes it, and the error says how to resume.
  experiment_result run_experiment(std::size_t index) {
    experiment_result out;
    out.run_id = m_start.run_ids[index];
    try {
      run(index, out);
    } catch (const store_error& e) {
      // A failed commit (disk full, I/O error, the file deleted or replaced) ends the session: the
      // run is marked interrupted where the file still takes it, so --resume completes it.
      if (out.run_id == 0) throw;
      try {
        m_db->finish_run(out.run_id, run_status::interrupted);
      } catch (const store_error&) {
      }
      throw store_error(fmt::format("{}\nrun {} stopped; what was stored before is kept; once the cause is fixed, "
                                    "resume with: {}",
                                    e.what(), out.run_id, resume_command(m_plan, out.run_id)));
    }
    return out;
  }

private:
  void run(std::size_t index, experiment_result& out);
  static std::string folder_of(const config::experiment& e) {
    return std::filesystem::path(e.path).parent_path().string();
  }
  /// The git state of the experiment's folder, asked once per folder and session (a suite's files
  /// usually share one folder), in the background from the start of the session.
  const git_state& git_of(const config::experiment& e) { return m_git.at(folder_of(e)).get(); }
  launch::exec_options exec_options_of(const config::experiment& e, const store::run_record& record) const;

  const std::vector<config::experiment>& m_experiments;
  const run_plan& m_plan;
  const resume_point& m_start;
  session_events* m_events;
  std::optional<store::database> m_db;
  counter_source m_source;
  std::int64_t m_gpu_id = 0;
  cost_totals m_cost;
  std::map<std::string, std::shared_future<git_state>> m_git; ///< by experiment folder
  std::optional<code_twins> m_twins;                          ///< --model-source code: each family's twin, loaded once
};

launch::exec_options active_session::exec_options_of(const config::experiment& e,
                                                     const store::run_record& record) const {
  launch::exec_options x;
  x.warmup = record.warmup;
  x.samples = record.samples;
  x.placements = m_plan.placements > 0 ? m_plan.placements : e.repeat.placements;
  x.min_sample_ns = m_plan.min_sample_us * 1e3;
  x.counter_launches = e.repeat.counter_launches;
  x.cache_control = m_plan.cache_control;
  x.passes = m_plan.passes;
  return x;
}

void active_session::run(std::size_t index, experiment_result& out) {
  const config::experiment& e = m_experiments[index];
  store::database& db = *m_db;
  const auto configs = config::expand(e);
  const auto record = run_record_of(e, m_plan, m_start.session_id, git_of(e));
  std::int64_t& run_id = out.run_id;
  if (run_id != 0) {
    try {
      check_resume_identity(db, run_id, m_source.gpu, record.fingerprint);
    } catch (const usage_error&) {
      db.finish_run(run_id, run_status::interrupted); // reopened for nothing: left resumable as it was
      throw;
    }
  }
  if (run_id == 0) {
    run_id = db.begin_run(m_gpu_id, record);
    if (m_events != nullptr) m_events->run_begun(index, run_id);
  }
  spdlog::info("run {}: {} ({} configurations) -> {}", run_id, e.path, configs.size(), db.path());
  const profile::session* counters = m_source.session_for(e);
  std::unique_ptr<config_runner> runner;
  const model_runner* model = nullptr;
  if (m_plan.model()) {
    const unsigned threads = m_plan.compile_jobs > 0 ? m_plan.compile_jobs : source::default_jobs();
    auto m = std::make_unique<model_runner>(e, m_plan.model_budget, m_twins ? &*m_twins : nullptr, threads);
    model = m.get();
    runner = std::move(m);
  } else {
    profile::session* counting = m_plan.passes.counters ? m_source.sessions.at(e.metrics).get() : nullptr;
    if (counting != nullptr) warm_up(m_source, *counting, m_plan);
    runner = std::make_unique<gpu_runner>(e, exec_options_of(e, record), counting);
  }
  // Source variants: compiled before the GPU phase (compile_phase.hpp) and found in the cache here,
  // or compiled as they run where there is no cache.
  const std::vector<variant_info> sources = source::variants_of(e);
  struct waiting {
    const config::configuration* cfg;
    std::string label;
    std::string started_at;
  };
  std::vector<waiting> added; // by tag: configurations whose results finish() has not given yet
  auto store_finished = [&] {
    const auto before_timing = [&](std::size_t tag) {
      if (m_events != nullptr) m_events->configuration_timing(index, static_cast<int>(added[tag].cfg->index));
    };
    auto finished = runner->finish(before_timing);
    if (finished.empty()) return;
    // The group's configurations in one transaction (a commit costs more than a configuration's
    // rows); who hears of the progress hears of each once it is committed.
    std::vector<store::configuration_record> records;
    {
      store::database::write_batch batch(db, fmt::format("recording {} configuration(s) of run {}", finished.size(),
                                                         run_id));
      for (auto& [tag, r] : finished) {
        const waiting& w = added[tag];
        auto rec = configuration_record_of(e, *w.cfg, r, counters, m_source.sm_clock_max_mhz);
        rec.started_at = w.started_at;
        rec.finished_at = store::utc_now_iso8601();
        db.add_configuration(run_id, rec);
        if (auto lines = runner->take_lines(tag)) store::add_lines(db, run_id, static_cast<int>(w.cfg->index), *lines);
        records.push_back(std::move(rec));
      }
      batch.commit();
    }
    for (std::size_t i = 0; i < finished.size(); ++i) {
      const auto& [tag, r] = finished[i];
      const waiting& w = added[tag];
      const store::configuration_record& rec = records[i];
      const int seq = static_cast<int>(w.cfg->index);
      if (m_events != nullptr) m_events->configuration_stored(index, seq);
      out.context_lost = out.context_lost || r.context_lost;

      std::size_t failed_expectations = 0;
      for (const auto& ex : rec.expectations) failed_expectations += ex.passed ? 0 : 1;
      // Not modelled is what the model cannot do, not a failure: the run's note says so.
      if (r.status == config_status::not_modelled)
        ++out.not_modelled;
      else if (r.status != config_status::ok || failed_expectations > 0)
        ++out.failures;
      m_cost.all.add(r);
      m_cost.add_resources(r);
      if (!r.samples_ns.empty() && median_of(r) < 100e3) m_cost.short_kernels.add(r);
      spdlog::info("[{}/{}] {}  {}", w.cfg->index + 1, configs.size(), w.label,
                   short_result(r, rec, failed_expectations, m_plan.model()));
    }
  };
  for (const auto& cfg : configs) {
    if (g_interrupted.load() || out.context_lost) break;
    const int seq = static_cast<int>(cfg.index);
    if (m_start.done[index].count(seq) != 0) continue;
    const variant_info* v = source_variant(sources, cfg.variant);
    if (v == nullptr) v = registry::instance().find_variant(e.family, cfg.variant);
    const std::string params = config::describe_params(cfg.params);
    if (m_events != nullptr) m_events->configuration_started(index, seq);
    added.push_back({&cfg, e.family + "/" + cfg.variant + " " + params, store::utc_now_iso8601()});
    runner->add(added.size() - 1, cfg, *v, e.name + "/" + cfg.variant + "/" + params);
    if (runner->full()) store_finished();
  }
  store_finished(); // what an interruption or the end of the experiment left in the group
  if (model != nullptr)
    if (const auto s = model->code_summary(); !s.empty()) spdlog::info("{}", s);
  if (!out.context_lost) db.finish_run(run_id, g_interrupted.load() ? run_status::interrupted : run_status::completed);
}

} // namespace

std::int64_t begin_session_row(store::database& db, const run_plan& plan, resume_point& start) {
  store::session_record session;
  session.host = host_name();
  session.pid = static_cast<std::int64_t>(getpid());
  session.command_line = plan.command_line;
  const auto id = db.begin_session(session);
  for (const auto run_id : start.run_ids) // a resumed run from before sessions joins this one
    if (run_id != 0) store::adopt_run(db, run_id, id);
  return id;
}

std::string finish_session(const std::string& db_path, const resume_point& start, int exit_code) {
  if (start.session_id == 0) return ""; // nothing was begun (no GPU, bad input): nothing to close
  const run_status status = exit_code == 0 || exit_code == static_cast<int>(exit_code::failures) ? run_status::completed
                            : exit_code >= 128 ? run_status::interrupted
                                               : run_status::failed;
  std::string counts;
  bool all_ok = false;
  try {
    auto db = store::database::open(db_path);
    db.finish_session(start.session_id, status, exit_code);
    const auto c = store::count_session(db, start.session_id);
    const auto ok = c.by_status.find(name_of(config_status::ok));
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
    reason = "interrupted; `bankbench run --resume RUN` completes a run";
    break;
  default: reason = exit_code > 128 ? "stopped by a signal" : "stopped by an error (above)";
  }
  return fmt::format("session {}: {} -> exit {}: {}", start.session_id, counts, exit_code, reason);
}

int interrupted_exit_code() {
  const int sig = g_stop_signal.load();
  return sig > 0 ? 128 + sig : static_cast<int>(exit_code::interrupted);
}

std::string resume_command(const run_plan& plan, std::int64_t run_id) {
  std::string model;
  if (plan.model()) {
    model = " --backend model";
    if (plan.model_source == model_source::code) model += " --model-source code";
    if (!plan.code_twins.empty()) model += " --code-twins " + shell_word(plan.code_twins);
  }
  return fmt::format("bankbench --db '{}' run{} --resume {}", plan.db, model, run_id);
}

void group_by_metric_list(std::vector<config::experiment>& experiments) {
  std::map<metrics::metric_list, std::size_t> first;
  for (const auto& e : experiments) first.emplace(e.metrics, first.size());
  std::stable_sort(experiments.begin(), experiments.end(),
                   [&](const config::experiment& a, const config::experiment& b) {
                     return first.at(a.metrics) < first.at(b.metrics);
                   });
}

std::size_t skip_unavailable(std::vector<config::experiment>& experiments) {
  const auto before = experiments.size();
  for (const auto& e : experiments)
    if (!e.skip_reason.empty()) spdlog::warn("{}: skipped: {}", shown_path(e.path), e.skip_reason);
  experiments.erase(std::remove_if(experiments.begin(), experiments.end(),
                                   [](const config::experiment& e) { return !e.skip_reason.empty(); }),
                    experiments.end());
  return before - experiments.size();
}

std::string run_fingerprint(const config::experiment& e, const run_plan& plan) {
  // Timing options do not change counters; how the counter pass runs does.
  const bool model = plan.model();
  // Source variants add their .cu files and every header they include.
  // Built-in variants from their code (a model run's option) add that, and so leave every other
  // run's fingerprint as it was.
  return sha256_hex(fmt::format("sources {}\nexperiment {}\nsource variants {}\nbackend {}\ncache_control {}\n"
                                "allocator {}\n{}",
                                build::sources_sha256, sha256_hex(e.text), source::source_fingerprint(e),
                                name_of(plan.backend), model ? "-" : launch::name_of(plan.cache_control),
                                model ? "-" : launch::name_of(plan.allocator),
                                model && plan.model_source == model_source::code ? "model source code\n" : ""));
}

int run_in_process(const std::vector<config::experiment>& experiments, const run_plan& plan, resume_point& start,
                   session_events* events) {
  active_session session(experiments, plan, start, events);
  std::size_t failures = 0, not_modelled = 0;
  bool context_lost = false;
  std::vector<std::int64_t> run_ids;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < experiments.size() && !g_interrupted.load() && !context_lost; ++i) {
    if (nothing_to_do(experiments, i, start)) continue; // a share without any of its configurations
    const auto r = session.run_experiment(i);
    failures += r.failures;
    not_modelled += r.not_modelled;
    context_lost = r.context_lost;
    run_ids.push_back(r.run_id);
    start.run_ids[i] = r.run_id;
  }
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  if (not_modelled > 0)
    spdlog::info("note: {} configuration{} not modelled (variants without an access plan, such as reference/memcpy, "
                 "and source kernels whose code the model cannot follow: `bankbench show` gives each reason); "
                 "they are stored as not_modelled, and a GPU run measures them",
                 not_modelled, not_modelled == 1 ? "" : "s");
  const cost_totals& cost = session.cost();
  if (plan.model() && cost.all.configurations > 0)
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
      if (id != 0) spdlog::warn("resume run {} with: {}", id, resume_command(plan, id));
    if (run_ids.size() < experiments.size())
      spdlog::warn("{} experiment(s) not begun; run their files again", experiments.size() - run_ids.size());
    return interrupted_exit_code();
  }
  return failures > 0 ? static_cast<int>(exit_code::failures) : 0;
}

} // namespace bb::session
