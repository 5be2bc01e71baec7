#include "runner/session/run_records.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "runner/common/backend.hpp"
#include "runner/common/metrics.hpp"
#include "runner/launch/nvml.hpp"
#include "runner/session/model_backend.hpp"

namespace bb::session {

store::gpu_record gpu_record_of(const launch::device_info& d) {
  store::gpu_record g;
  g.uuid = d.uuid;
  g.name = d.name;
  g.cc_major = d.cc_major;
  g.cc_minor = d.cc_minor;
  g.sm_count = d.sm_count;
  g.memory_bytes = d.memory_bytes;
  g.l2_bytes = d.l2_bytes;
  g.sm_clock_max_mhz = d.sm_clock_max_mhz;
  g.mem_clock_max_mhz = d.mem_clock_max_mhz;
  g.driver_version = d.driver_version;
  g.cuda_driver_version = d.cuda_driver_version;
  g.cuda_runtime_version = d.cuda_runtime_version;
  g.backend = name_of(backend::cupti);
  return g;
}

std::optional<double> observed_value(const store::configuration_record& rec, const std::string& metric) {
  double sum = 0;
  std::size_t n = 0;
  for (const auto& launch : rec.launches) { // a launch's raw counters come before its derived metrics
    const auto it = std::find_if(launch.values.begin(), launch.values.end(),
                                 [&](const store::metric_value& v) { return v.name == metric; });
    if (it == launch.values.end()) continue;
    sum += it->value;
    ++n;
  }
  if (n == 0) return std::nullopt;
  return sum / static_cast<double>(n);
}

namespace {

std::string unit_of(const profile::session* counters, const std::string& name) {
  if (counters != nullptr)
    for (const auto& m : counters->metrics())
      if (m.name == name) return m.unit;
  return "";
}

std::string derived_unit(const std::string& name) {
  for (const auto& d : metrics::derived_metrics())
    if (d.name == name) return d.unit;
  return "";
}

} // namespace

store::configuration_record configuration_record_of(const config::experiment& exp, const config::configuration& cfg,
                                                    const launch::config_result& r, const profile::session* counters,
                                                    int sm_clock_max_mhz) {
  store::configuration_record rec;
  rec.seq = static_cast<int>(cfg.index);
  rec.variant = exp.family + "/" + cfg.variant;
  rec.family = exp.family;
  rec.params_json = cfg.params.dump();
  rec.status = r.status;
  rec.reason = r.reason;
  if (r.status == config_status::ok && r.unverified) {
    rec.status = config_status::unverified;
    rec.reason = r.reason.empty() ? "the variant has no check: its output was not compared with anything" : r.reason;
  }
  rec.compile_key = r.compile_key;
  rec.compile_ms = r.compile_ms;
  rec.compiler = r.compiler;
  rec.compile_options = r.compile_options;
  rec.bytes_moved = r.bytes_moved;
  rec.host_rss_peak_bytes = r.host_rss_peak_bytes;
  rec.device_used_bytes = r.device_used_bytes;
  rec.pool_reserved_bytes = r.pool_reserved_bytes;
  rec.smem_access_bytes = r.smem_access_bytes;
  rec.verified_elements = r.verify.checked;
  rec.mismatched_elements = r.verify.mismatches;

  // A value that is not a number (a ratio metric over zero events, a counter the chip could not
  // evaluate) is left out and said: a row holds a number or is absent, never a NaN read as 0.
  std::set<std::string> not_numbers;
  const auto add = [&](store::launch_record& launch, const std::string& name, std::string unit, double value,
                       bool derived) {
    if (std::isfinite(value))
      launch.values.push_back({name, std::move(unit), value, derived});
    else
      not_numbers.insert(name + " = " + fmt::format("{}", value));
  };
  for (std::size_t i = 0; i < r.ranges.size(); ++i) {
    store::launch_record launch;
    launch.launch_index = static_cast<int>(i);
    for (const auto& [name, value] : r.ranges[i]) add(launch, name, unit_of(counters, name), value, false);
    for (const auto& [name, value] : metrics::derive(r.ranges[i], r.smem_access_bytes))
      add(launch, name, derived_unit(name), value, true);
    rec.launches.push_back(std::move(launch));
  }

  // The bank model's prediction beside the measurement, where the variant has an access plan or,
  // for a source variant, where its PTX can be run within a small budget.
  std::map<std::string, double> predicted;
  if (const variant_info* v = exp.sources.empty() ? registry::instance().find_variant(exp.family, cfg.variant)
                                                  : nullptr) {
    if (const auto p = predict_variant(*v, cfg.params)) predicted = model::predicted_metric_rows(*p);
  } else if (const config::source_variant* sv = exp.find_source(cfg.variant);
             sv != nullptr && counters != nullptr && r.status == config_status::ok) {
    if (const auto p = predict_source_variant(exp, *sv, cfg.params)) predicted = model::predicted_metric_rows(*p);
  }
  if (!predicted.empty() && rec.launches.empty()) rec.launches.push_back({0, {}});
  for (const auto& [name, value] : predicted) add(rec.launches.front(), name, derived_unit(name), value, true);
  if (!not_numbers.empty()) {
    spdlog::warn("{} {}: not stored, not a number: {}", rec.variant, config::describe_params(cfg.params),
                 fmt::join(not_numbers, ", "));
  }

  if (!r.samples_ns.empty()) {
    auto t = store::summarize_samples(r.samples_ns, r.sample_placement);
    t.sm_clock_mhz = r.sm_clock_mhz;
    t.sm_clock_max_mhz = sm_clock_max_mhz;
    t.throttled = launch::nvml::is_throttled(r.clock_event_reasons);
    t.throttle_reasons = launch::nvml::describe(r.clock_event_reasons);
    t.bandwidth_gbps = store::bandwidth_gbps(r.bytes_moved, t.median_ns);
    t.sample_sm_clock_mhz = r.sample_sm_clock_mhz;
    t.launches_per_sample = r.launches_per_sample;
    for (const std::uint64_t reasons : r.sample_clock_event_reasons) {
      const bool throttled = launch::nvml::is_throttled(reasons);
      t.sample_throttled.push_back(throttled ? 1 : 0);
      t.throttled_samples += throttled ? 1 : 0;
    }
    rec.timing = std::move(t);
  }

  if (r.status != config_status::ok) return rec; // a failed configuration has nothing to hold expectations to
  const auto observe = [&](const std::string& metric) {
    // The launches' values first (measured, or the model's counters), then the prediction beside them.
    auto observed = observed_value(rec, metric);
    if (const auto it = predicted.find(metric); !observed && it != predicted.end()) observed = it->second;
    return observed;
  };
  for (auto& o : config::judge_expectations(exp, cfg, observe, !r.ranges.empty()))
    rec.expectations.push_back({std::move(o.metric), std::move(o.text), o.observed, o.passed});
  return rec;
}

} // namespace bb::session
