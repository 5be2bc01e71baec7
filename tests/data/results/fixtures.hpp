#pragma once
// Fixture databases for the results commands (compare, regress, baseline, history, export, merge,
// report), built through the store API so that they follow the schema of the build under test.
//
// One experiment, "transpose": variants naive, padded and swizzled at n = 1024, 4096 and 8192,
// three profiled launches each, ten timed samples. Counter values follow what an H200 measures:
// naive loads are 32-way conflicted, padded loads show Hopper's ~0.117 conflicts per request
// (61512, 61625 and 62061 conflicts over three launches at n = 4096), swizzled none.
//
//   run 1  H200 (sm_90)      commit 1111...  the baseline
//   run 2  H200 (sm_90)      commit 1111...  the same code again: run-to-run noise
//   run 3  RTX 4090 (sm_89)  commit 1111...  another architecture
//   run 4  bank model        commit 1111...  predictions (backend "model")
//   run 5  H200 (sm_90)      commit 2222...  noise only: padded n=4096 load conflicts +0.65 % (beyond
//                                            the 0.5 % floor, within the 0.9 % launch spread), times +1 %
//   run 6  H200 (sm_90)      commit 3333...  planted regression (only with planted_regression):
//                                            swizzled n=4096 conflicts back (+0.5 wavefronts per
//                                            request: a regression), padded n=8192 conflicts +19 %
//                                            (+0.022 wavefronts per request: under the gate's
//                                            minimum effect, the size of arbitration noise),
//                                            naive n=1024 load wavefronts halved (an improvement),
//                                            naive n=8192 50 % slower; two expectations fail
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "runner/common/metrics.hpp"
#include "runner/store/database.hpp"
#include "runner/store/samples.hpp"

namespace bb::test::results {

inline const std::string k_commit_1 = "1111aaaa1111aaaa1111aaaa1111aaaa1111aaaa";
inline const std::string k_commit_2 = "2222bbbb2222bbbb2222bbbb2222bbbb2222bbbb";
inline const std::string k_commit_3 = "3333cccc3333cccc3333cccc3333cccc3333cccc";

struct fixture_options {
  bool planted_regression = true; ///< add run 6
  std::string host = "lab-h200";  ///< differs between databases that are merged
  int hour_offset = 0;            ///< shifts every started_at, so two databases hold different runs
};

/// What one configuration measures in a run: per-request loads and the conflicts' launch factors.
/// Load wavefronts per request are 1 (the ideal for 4-byte accesses) plus the conflicts per request.
struct shape {
  double st_wavefronts_per_request = 1;
  double ld_conflicts_per_request = 0;
  std::vector<double> launch_factors = {1, 1, 1}; ///< multiply the load conflicts per launch
  double time_ns = 10000;
  double time_factor = 1;
  std::vector<std::string> failed; ///< expectation texts that fail
};

inline store::gpu_record h200() {
  store::gpu_record g;
  g.uuid = "GPU-h200-0001";
  g.name = "NVIDIA H200";
  g.chip = "GH100";
  g.cc_major = 9;
  g.sm_count = 132;
  g.memory_bytes = 150'000'000'000ULL;
  g.l2_bytes = 52'428'800;
  g.sm_clock_max_mhz = 1980;
  g.mem_clock_max_mhz = 3201;
  g.driver_version = "580.159.04";
  g.cuda_driver_version = g.cuda_runtime_version = 13000;
  return g;
}

inline store::gpu_record rtx4090() {
  store::gpu_record g = h200();
  g.uuid = "GPU-4090-0002";
  g.name = "NVIDIA GeForce RTX 4090";
  g.chip = "AD102";
  g.cc_major = 8;
  g.cc_minor = 9;
  g.sm_count = 128;
  return g;
}

inline store::gpu_record model_gpu() {
  store::gpu_record g;
  g.uuid = "model-rules-1";
  g.name = "bank model (rules 1)";
  g.backend = "model";
  return g;
}

/// The H200's numbers for `variant` at `n`, before any run's changes.
inline shape h200_shape(const std::string& variant, int n) {
  shape s;
  const double ns_per_element = variant == "naive" ? 0.0072 : 0.0027;
  s.time_ns = ns_per_element * n * n + 2000;
  if (variant == "naive") {
    s.ld_conflicts_per_request = 31;
  } else if (variant == "padded") {
    s.ld_conflicts_per_request = 61512.0 / 524288.0; // Hopper counts these on padded tiles
    s.launch_factors = {1.0, 61625.0 / 61512.0, 62061.0 / 61512.0};
  }
  return s;
}

inline store::configuration_record configuration(int seq, const std::string& variant, int n, const shape& s, bool timed,
                                                 bool predicted) {
  store::configuration_record c;
  c.seq = seq;
  c.variant = "transpose/" + variant;
  c.family = "transpose";
  c.params_json = "{\"n\":" + std::to_string(n) + "}";
  c.bytes_moved = 2ULL * n * n * 4;
  const double requests = static_cast<double>(n) * n / 32;
  for (int i = 0; i < static_cast<int>(s.launch_factors.size()); ++i) {
    const double conflicts = std::round(requests * s.ld_conflicts_per_request * s.launch_factors[i]);
    std::map<std::string, double> raw = {
        {metrics::k_ld_requests, requests},
        {metrics::k_st_requests, requests},
        {metrics::k_ld_wavefronts, requests + conflicts},
        {metrics::k_st_wavefronts, requests * s.st_wavefronts_per_request},
        {metrics::k_ld_conflicts, conflicts},
        {metrics::k_st_conflicts, requests * (s.st_wavefronts_per_request - 1)},
        {metrics::k_gpu_time, s.time_ns * s.time_factor * 1.3},
    };
    store::launch_record launch{i, {}};
    for (const auto& [name, value] : raw) launch.values.push_back({name, "", value, false});
    for (const auto& [name, value] : metrics::derive(raw, 4)) launch.values.push_back({name, "", value, true});
    if (i == 0 && predicted) {
      const double p = variant == "naive" ? 32 : 1;
      launch.values.push_back({"predicted_load_wavefronts_per_request", "ratio", p, true});
      launch.values.push_back({"predicted_store_wavefronts_per_request", "ratio", 1, true});
    }
    c.launches.push_back(std::move(launch));
  }
  if (timed) {
    // Ten samples within about 1 % of the median, always the same pattern.
    static const double jitter[] = {0.996, 1.004, 0.999, 1.002, 0.998, 1.007, 1.0, 0.997, 1.001, 1.003};
    std::vector<double> samples;
    for (double j : jitter) samples.push_back(s.time_ns * s.time_factor * j);
    c.timing = store::summarize_samples(samples);
    c.timing->bandwidth_gbps = store::bandwidth_gbps(c.bytes_moved, c.timing->median_ns);
    c.timing->sm_clock_mhz = c.timing->sm_clock_max_mhz = 1980;
  }
  if (variant == "naive") {
    const double wf = 1 + s.ld_conflicts_per_request;
    c.expectations.push_back(
        {"load_wavefronts_per_request", "load_wavefronts_per_request between [31, 33]", wf, wf >= 31 && wf <= 33});
  } else {
    const double conflicts = s.ld_conflicts_per_request;
    c.expectations.push_back(
        {"load_conflicts_per_request", "load_conflicts_per_request < 0.2", conflicts, conflicts < 0.2});
  }
  return c;
}

struct run_plan {
  store::gpu_record gpu;
  std::string commit, started_at;
  bool timed = true, predicted = true;
  /// Changes a shape for (variant, n) before it is written.
  std::function<void(const std::string&, int, shape&)> change = [](const std::string&, int, shape&) {};
};

inline void write_run(store::database& db, const run_plan& p, const fixture_options& o) {
  const auto gpu = db.upsert_gpu(p.gpu);
  store::run_record r;
  r.started_at = p.started_at;
  r.host = o.host;
  r.git_commit = p.commit;
  r.bankbench_version = "0.1.0";
  r.experiment_name = "transpose";
  r.experiment_path = "experiments/transpose/transpose.yaml";
  r.experiment_text = "name: transpose\n";
  r.experiment_sha256 = "5b0d7a3c0e8f4a1e9d2c6b7a8f9e0d1c2b3a4f5e6d7c8b9a0f1e2d3c4b5a6978";
  r.command_line = "bankbench run experiments/transpose/transpose.yaml";
  r.metric_set = "bank_conflicts";
  r.metrics = {metrics::k_ld_requests, metrics::k_ld_conflicts};
  r.warmup = 3;
  r.samples = 10;
  const auto run = db.begin_run(gpu, r);
  int seq = 0;
  for (const char* variant : {"naive", "padded", "swizzled"})
    for (const int n : {1024, 4096, 8192}) {
      shape s = h200_shape(variant, n);
      p.change(variant, n, s);
      db.add_configuration(run, configuration(seq++, variant, n, s, p.timed, p.predicted));
    }
  db.finish_run(run, bb::run_status::completed);
}

inline std::string at(int day, int hour, const fixture_options& o) {
  char text[40];
  std::snprintf(text, sizeof text, "2026-11-%02dT%02d:00:00.000Z", day, hour + o.hour_offset);
  return text;
}

/// Writes the fixture database at `path` (which must not exist yet).
inline void build_fixture(const std::string& path, const fixture_options& o = {}) {
  auto db = store::database::open(path);
  // Run 2: the same code again, each launch a little off run 1's.
  auto repeat = [](const std::string& v, int, shape& s) {
    if (v == "padded") s.launch_factors = {0.9985, 1.0052, 1.0031};
    s.time_factor = 1.002;
  };
  auto ada = [](const std::string& v, int, shape& s) {
    if (v == "padded") { // no Hopper quirk on Ada
      s.ld_conflicts_per_request = 0;
      s.launch_factors = {1, 1, 1};
    }
    s.time_factor = 1.6;
  };
  auto model = [](const std::string& v, int, shape& s) {
    s.ld_conflicts_per_request = v == "naive" ? 31 : 0;
    s.launch_factors = {1};
  };
  // Run 5: padded n=4096 loads 0.8 % up: beyond the floor, inside the spread of run 1's launches.
  auto noise = [](const std::string& v, int n, shape& s) {
    if (v == "padded" && n == 4096)
      s.launch_factors = {1.0041 * 1.0072, 0.9977 * 1.0072, 1.0068 * 1.0072};
    else if (v == "padded")
      s.launch_factors = {1.0041, 0.9977, 1.0068};
    s.time_factor = 1.01;
  };
  auto planted = [](const std::string& v, int n, shape& s) {
    if (v == "swizzled" && n == 4096) {
      s.ld_conflicts_per_request = 0.5;
      s.launch_factors = {1, 1.001, 0.999};
    }
    if (v == "padded" && n == 8192) s.ld_conflicts_per_request *= 1.19;
    if (v == "naive" && n == 1024) s.ld_conflicts_per_request = 15;
    if (v == "naive" && n == 8192) s.time_factor = 1.5;
  };
  write_run(db, {h200(), k_commit_1, at(1, 10, o), true, true, [](const std::string&, int, shape&) {}}, o);
  write_run(db, {h200(), k_commit_1, at(1, 11, o), true, true, repeat}, o);
  write_run(db, {rtx4090(), k_commit_1, at(1, 12, o), true, true, ada}, o);
  write_run(db, {model_gpu(), k_commit_1, at(1, 13, o), false, false, model}, o);
  write_run(db, {h200(), k_commit_2, at(2, 10, o), true, true, noise}, o);
  if (o.planted_regression) write_run(db, {h200(), k_commit_3, at(3, 10, o), true, true, planted}, o);
}

} // namespace bb::test::results
