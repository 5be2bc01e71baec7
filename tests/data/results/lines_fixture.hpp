#pragma once
// A database with per-line shared-memory counters (schema 8) for the tests of `lines`, export and
// merge, and the source file its rows point at.
//
// The line rows are those CUPTI's SASS metrics gave on an H100 (CUDA 13.0, CUPTI 2025.3.1) for
// two kernels of a probe.cu, 128 blocks of 256 threads:
//   two_way(float*, int): pc 0x180, line 18, STS: 1024 executions, 32768 threads, 2048 wavefronts,
//     1024 ideal; pcs 0x240, 0x250, 0x260, 0x270, line 21, LDS, each the same;
//   hist(unsigned*): pc 0x70, line 35, STS, 128 wavefronts, 128 ideal; pc 0x90,
//     device_atomic_functions.hpp line 112, ATOMS, 1024 executions, 1024 wavefronts, 1024 ideal;
//     pc 0xf0, line 39, LDS, 128 wavefronts, 128 ideal.
// The probe's notes give no executions for hist's STS and LDS and no threads for hist: those are
// stored as 0 and no test reads them. k_probe_source is a probe.cu whose lines 18, 21, 35, 37 and
// 39 hold those accesses, so that the source text column has something to read.
//
// The range profiler's conflicts stored for two_way (op_ld 4096, op_st 1024) are the sums of its
// per-line excess, as the issue's probe found them equal for its kernels; hist has no counters
// stored (a run with --no-counters), so its residual is not known.
//
//   run 1  H100  probe  two_way, hist            no line data
//   run 2  H100  probe  seq 0 two_way            lines ok, counters stored
//                       seq 1 hist               lines ok, no counters
//                       seq 2 plain              lines no_line_info, with a note
#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "runner/common/metrics.hpp"
#include "runner/store/database.hpp"
#include "runner/store/lines.hpp"

namespace bb::test::lines {

inline const char* const k_probe_source =
    R"(// Probe for per-line shared-memory counters, built with -lineinfo and launched with 128 blocks
// of 256 threads. two_way: every shared access has a stride of two words, so lanes i and i + 16
// of a warp share a bank (2 wavefronts where 1 would do). hist: 32 bins in shared memory,
// cleared and read by the first warp, counted by every thread with a shared atomic.

constexpr int k_threads = 256;
constexpr int k_words = 2 * k_threads;

__device__ int slot(int t) { return 2 * t; }

__global__ void two_way(float* out, int n) {
  __shared__ float tile[k_words];
  const int t = threadIdx.x;
  float acc = 0;
  // n < 0 never holds; it keeps the compiler from folding the loads away.
  if (n < 0) return;

  tile[slot(t)] = static_cast<float>(t);
  __syncthreads();
#pragma unroll
  for (int k = 0; k < 4; ++k) acc += tile[(slot(t) + 64 * k) % k_words];
  out[blockIdx.x * k_threads + t] = acc;
}

// The values are the thread indices, so the 32 lanes of a warp add to 32 different bins: the
// atomics are conflict-free, as are the first warp's clearing store and its final load.
//
// Per launch (128 blocks): 128 clearing stores and 128 final loads of one wavefront each, 1024
// shared atomics (8 warps a block) of one wavefront each; two_way's store takes 2048 wavefronts
// for 1024 executions, and so does each of its four unrolled loads.
// bins must hold 32 words, zeroed before the launch.
__global__ void hist(unsigned* bins) {
  __shared__ unsigned counts[32];
  const int t = threadIdx.x;
  if (t < 32) counts[t] = 0;
  __syncthreads();
  atomicAdd(&counts[t % 32], 1u);
  __syncthreads();
  if (t < 32) atomicAdd(&bins[t], counts[t]);
}
)";

inline const std::string k_two_way = "_Z7two_wayPfi";
inline const std::string k_hist = "_Z4histPj";
inline const std::string k_atomics_header = "device_atomic_functions.hpp";
inline const std::string k_params = R"({"blocks":128,"threads":256})";

inline store::line_row row(const std::string& function, std::uint32_t pc, const std::string& file, int line,
                           const std::string& opcode, const std::string& kind, std::uint64_t executions,
                           std::uint64_t threads, std::uint64_t wavefronts, std::uint64_t ideal) {
  store::line_row r;
  r.function = function;
  r.pc = pc;
  r.file = file;
  r.line = line;
  r.opcode = opcode;
  r.kind = kind;
  r.executions = executions;
  r.threads = threads;
  r.wavefronts = wavefronts;
  r.ideal = ideal;
  return r;
}

/// two_way's five instructions; `file` is where probe.cu lies.
inline store::line_collection two_way_lines(const std::string& file) {
  store::line_collection c;
  c.kernel = k_two_way;
  c.collect_ms = 550;
  c.rows.push_back(row(k_two_way, 0x180, file, 18, "STS", "sts", 1024, 32768, 2048, 1024));
  for (const std::uint32_t pc : {0x240U, 0x250U, 0x260U, 0x270U})
    c.rows.push_back(row(k_two_way, pc, file, 21, "LDS", "lds", 1024, 32768, 2048, 1024));
  return c;
}

inline store::line_collection hist_lines(const std::string& file) {
  store::line_collection c;
  c.kernel = k_hist;
  c.collect_ms = 540;
  c.rows.push_back(row(k_hist, 0x70, file, 35, "STS", "sts", 0, 0, 128, 128));
  c.rows.push_back(row(k_hist, 0x90, k_atomics_header, 112, "ATOMS", "atoms", 1024, 0, 1024, 1024));
  c.rows.push_back(row(k_hist, 0xf0, file, 39, "LDS", "lds", 0, 0, 128, 128));
  return c;
}

inline store::gpu_record h100() {
  store::gpu_record g;
  g.uuid = "GPU-h100-lines";
  g.name = "NVIDIA H100 80GB HBM3";
  g.chip = "GH100";
  g.cc_major = 9;
  g.sm_count = 132;
  g.driver_version = "580.95.05";
  g.cuda_driver_version = g.cuda_runtime_version = 13000;
  return g;
}

inline store::configuration_record configuration(int seq, const std::string& name, bool counters) {
  store::configuration_record c;
  c.seq = seq;
  c.variant = "source/" + name;
  c.family = "source";
  c.params_json = k_params;
  if (!counters) return c;
  const std::map<std::string, double> raw = {{metrics::k_ld_requests, 4096},   {metrics::k_st_requests, 1024},
                                             {metrics::k_ld_wavefronts, 8192}, {metrics::k_st_wavefronts, 2048},
                                             {metrics::k_ld_conflicts, 4096},  {metrics::k_st_conflicts, 1024}};
  store::launch_record launch{0, {}};
  for (const auto& [metric, value] : raw) launch.values.push_back({metric, "", value, false});
  for (const auto& [metric, value] : metrics::derive(raw, 4)) launch.values.push_back({metric, "", value, true});
  c.launches.push_back(std::move(launch));
  return c;
}

inline std::int64_t write_probe_run(store::database& db, const std::string& started_at) {
  store::run_record r;
  r.started_at = started_at;
  r.host = "lab-h100";
  r.git_commit = "4444dddd4444dddd4444dddd4444dddd4444dddd";
  r.bankbench_version = "0.1.0";
  r.experiment_name = "probe";
  r.experiment_path = "probe/probe.yaml";
  r.experiment_text = "name: probe\n";
  r.experiment_sha256 = "9e1c";
  r.command_line = "bankbench run probe/probe.yaml";
  r.metrics = {metrics::k_ld_conflicts, metrics::k_st_conflicts};
  return db.begin_run(db.upsert_gpu(h100()), r);
}

/// Writes probe.cu into `folder` and the database at `db_path` (which must not exist yet);
/// returns probe.cu's path, as the rows hold it.
inline std::string build_lines_fixture(const std::string& db_path, const std::string& folder) {
  const std::string source = folder + "/probe.cu";
  std::ofstream(source) << k_probe_source;
  auto db = store::database::open(db_path);
  const auto first = write_probe_run(db, "2026-11-26T10:00:00.000Z");
  db.add_configuration(first, configuration(0, "two_way", true));
  db.add_configuration(first, configuration(1, "hist", false));
  db.finish_run(first, bb::run_status::completed);
  const auto second = write_probe_run(db, "2026-11-26T11:00:00.000Z");
  db.add_configuration(second, configuration(0, "two_way", true));
  db.add_configuration(second, configuration(1, "hist", false));
  db.add_configuration(second, configuration(2, "plain", false));
  store::add_lines(db, second, 0, two_way_lines(source));
  store::add_lines(db, second, 1, hist_lines(source));
  store::line_collection none;
  none.status = store::lines_status::no_line_info;
  none.note = "the kernel carries no line info; compile it with -lineinfo";
  none.kernel = k_two_way;
  store::add_lines(db, second, 2, none);
  db.finish_run(second, bb::run_status::completed);
  return source;
}

} // namespace bb::test::lines
