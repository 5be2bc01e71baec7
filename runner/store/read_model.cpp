#include "runner/store/read_model.hpp"

#include <nlohmann/json.hpp>

namespace bb::store {

namespace {

using sqlite::statement;

constexpr sqlite::field<gpu_record> k_gpu_fields[] = {
    {"g.uuid", "gpu_uuid", [](const statement& st, int i, gpu_record& g) { g.uuid = st.text(i); }},
    {"g.name", "gpu_name", [](const statement& st, int i, gpu_record& g) { g.name = st.text(i); }},
    {"g.chip", "gpu_chip", [](const statement& st, int i, gpu_record& g) { g.chip = st.text(i); }},
    {"g.cc_major", "gpu_cc_major", [](const statement& st, int i, gpu_record& g) { g.cc_major = st.int32(i); }},
    {"g.cc_minor", "gpu_cc_minor", [](const statement& st, int i, gpu_record& g) { g.cc_minor = st.int32(i); }},
    {"g.sm_count", "gpu_sm_count", [](const statement& st, int i, gpu_record& g) { g.sm_count = st.int32(i); }},
    {"g.memory_bytes", "gpu_memory_bytes",
     [](const statement& st, int i, gpu_record& g) { g.memory_bytes = static_cast<std::uint64_t>(st.int64(i)); }},
    {"g.l2_bytes", "gpu_l2_bytes",
     [](const statement& st, int i, gpu_record& g) { g.l2_bytes = static_cast<std::uint64_t>(st.int64(i)); }},
    {"g.sm_clock_max_mhz", "gpu_sm_clock_max_mhz",
     [](const statement& st, int i, gpu_record& g) { g.sm_clock_max_mhz = st.int32(i); }},
    {"g.mem_clock_max_mhz", "gpu_mem_clock_max_mhz",
     [](const statement& st, int i, gpu_record& g) { g.mem_clock_max_mhz = st.int32(i); }},
    {"g.driver_version", "gpu_driver_version",
     [](const statement& st, int i, gpu_record& g) { g.driver_version = st.text(i); }},
    {"g.cuda_driver_version", "gpu_cuda_driver_version",
     [](const statement& st, int i, gpu_record& g) { g.cuda_driver_version = st.int32(i); }},
    {"g.cuda_runtime_version", "gpu_cuda_runtime_version",
     [](const statement& st, int i, gpu_record& g) { g.cuda_runtime_version = st.int32(i); }},
    {"g.backend", "gpu_backend", [](const statement& st, int i, gpu_record& g) { g.backend = st.text(i); }},
};

std::vector<std::string> metrics_of(const std::string& json) {
  // The column's CHECK guarantees valid JSON; a list of anything but strings is not ours to read.
  std::vector<std::string> out;
  const auto metrics = nlohmann::json::parse(json, nullptr, false);
  if (metrics.is_array())
    for (const auto& m : metrics)
      if (m.is_string()) out.push_back(m.get<std::string>());
  return out;
}

// Schema version 6 added the session, the process and what built and ran the run; version 9 the
// columns of `bankbench attach`.
constexpr sqlite::field<run_detail> k_run_fields[] = {
    {"r.id", "id", [](const statement& st, int i, run_detail& d) { d.id = st.int64(i); }},
    {"r.gpu_id", "gpu_id", [](const statement& st, int i, run_detail& d) { d.gpu_id = st.int64(i); }},
    {"r.finished_at", "finished_at", [](const statement& st, int i, run_detail& d) { d.finished_at = st.text(i); }},
    {"r.status", "status",
     [](const statement& st, int i, run_detail& d) { d.status = run_status_read(st.text(i), st.path()); }},
    {"r.started_at", "started_at", [](const statement& st, int i, run_detail& d) { d.run.started_at = st.text(i); }},
    {"r.host", "host", [](const statement& st, int i, run_detail& d) { d.run.host = st.text(i); }},
    {"r.git_commit", "git_commit", [](const statement& st, int i, run_detail& d) { d.run.git_commit = st.text(i); }},
    {"r.git_dirty", "git_dirty", [](const statement& st, int i, run_detail& d) { d.run.git_dirty = st.int64(i) != 0; }},
    {"r.bankbench_version", "bankbench_version",
     [](const statement& st, int i, run_detail& d) { d.run.bankbench_version = st.text(i); }},
    {"r.experiment_name", "experiment_name",
     [](const statement& st, int i, run_detail& d) { d.run.experiment_name = st.text(i); }},
    {"r.experiment_path", "experiment_path",
     [](const statement& st, int i, run_detail& d) { d.run.experiment_path = st.text(i); }},
    {"r.experiment_text", "experiment_text",
     [](const statement& st, int i, run_detail& d) { d.run.experiment_text = st.text(i); }},
    {"r.experiment_sha256", "experiment_sha256",
     [](const statement& st, int i, run_detail& d) { d.run.experiment_sha256 = st.text(i); }},
    {"r.command_line", "command_line",
     [](const statement& st, int i, run_detail& d) { d.run.command_line = st.text(i); }},
    {"r.metric_set", "metric_set", [](const statement& st, int i, run_detail& d) { d.run.metric_set = st.text(i); }},
    {"r.metrics_json", "metrics_json",
     [](const statement& st, int i, run_detail& d) { d.run.metrics = metrics_of(st.text(i)); }},
    {"r.seed", "seed",
     [](const statement& st, int i, run_detail& d) { d.run.seed = static_cast<std::uint64_t>(st.int64(i)); }},
    {"r.warmup", "warmup", [](const statement& st, int i, run_detail& d) { d.run.warmup = st.int32(i); }},
    {"r.samples", "samples", [](const statement& st, int i, run_detail& d) { d.run.samples = st.int32(i); }},
    {"r.session_id", "session_id", [](const statement& st, int i, run_detail& d) { d.run.session_id = st.int64(i); },
     6},
    {"r.pid", "pid", [](const statement& st, int i, run_detail& d) { d.run.pid = st.int64(i); }, 6},
    {"r.sources_sha256", "sources_sha256",
     [](const statement& st, int i, run_detail& d) { d.run.sources_sha256 = st.text(i); }, 6},
    {"r.fingerprint", "fingerprint", [](const statement& st, int i, run_detail& d) { d.run.fingerprint = st.text(i); },
     6},
    {"r.slurm_job_id", "slurm_job_id",
     [](const statement& st, int i, run_detail& d) { d.run.slurm_job_id = st.text(i); }, 6},
    {"r.slurm_array_task_id", "slurm_array_task_id",
     [](const statement& st, int i, run_detail& d) { d.run.slurm_array_task_id = st.text(i); }, 6},
    {"r.cuda_visible_devices", "cuda_visible_devices",
     [](const statement& st, int i, run_detail& d) { d.run.cuda_visible_devices = st.text(i); }, 6},
    {"r.shard", "shard", [](const statement& st, int i, run_detail& d) { d.run.shard = st.text(i); }, 6},
    // Version 9: runs of `bankbench attach`; an older database's runs are all of `bankbench run`.
    {"r.kind", "kind",
     [](const statement& st, int i, run_detail& d) { d.run.kind = st.is_null(i) ? "run" : st.text(i); }, 9},
    {"r.working_directory", "working_directory",
     [](const statement& st, int i, run_detail& d) { d.run.working_directory = st.text(i); }, 9},
    {"r.program_exit", "program_exit",
     [](const statement& st, int i, run_detail& d) {
       d.program_exit = st.is_null(i) ? std::nullopt : std::optional<int>(st.int32(i));
     },
     9},
    {"r.note", "note", [](const statement& st, int i, run_detail& d) { d.note = st.text(i); }, 9},
};

using configuration = stored_configuration;

constexpr sqlite::field<configuration> k_configuration_fields[] = {
    {"c.id", "configuration_id", [](const statement& st, int i, configuration& c) { c.id = st.int64(i); }},
    {"c.run_id", "run_id", [](const statement& st, int i, configuration& c) { c.run_id = st.int64(i); }},
    {"c.seq", "seq", [](const statement& st, int i, configuration& c) { c.seq = st.int32(i); }},
    {"c.variant", "variant", [](const statement& st, int i, configuration& c) { c.variant = st.text(i); }},
    {"c.family", "family", [](const statement& st, int i, configuration& c) { c.family = st.text(i); }},
    {"c.params_json", "params_json", [](const statement& st, int i, configuration& c) { c.params_json = st.text(i); }},
    {"c.status", "status",
     [](const statement& st, int i, configuration& c) { c.status = status_read(st.text(i), st.path()); }},
    {"c.reason", "reason", [](const statement& st, int i, configuration& c) { c.reason = st.text(i); }},
    {"c.bytes_moved", "bytes_moved",
     [](const statement& st, int i, configuration& c) { c.bytes_moved = static_cast<std::uint64_t>(st.int64(i)); }},
    {"c.smem_access_bytes", "smem_access_bytes",
     [](const statement& st, int i, configuration& c) { c.smem_access_bytes = st.int32(i); }},
    {"c.verified_elements", "verified_elements",
     [](const statement& st, int i, configuration& c) {
       c.verified_elements = static_cast<std::uint64_t>(st.int64(i));
     }},
    {"c.mismatched_elements", "mismatched_elements",
     [](const statement& st, int i, configuration& c) {
       c.mismatched_elements = static_cast<std::uint64_t>(st.int64(i));
     }},
};

} // namespace

std::string gpu_reader::columns() { return sqlite::select_list<gpu_record>(k_gpu_fields, 1); }

gpu_reader::gpu_reader(const statement& st) : m_gpu(st, k_gpu_fields) {}

gpu_record gpu_reader::read() const {
  gpu_record g;
  m_gpu.read(g);
  return g;
}

std::string run_reader::columns(int version) {
  return sqlite::select_list<run_detail>(k_run_fields, version) + ", " + gpu_reader::columns();
}

run_reader::run_reader(const statement& st) : m_run(st, k_run_fields), m_gpu(st) {}

void run_reader::read(run_detail& into) const {
  m_run.read(into);
  into.gpu = m_gpu.read();
}

std::string configuration_reader::columns() { return sqlite::select_list<configuration>(k_configuration_fields, 1); }

configuration_reader::configuration_reader(const statement& st) : m_configuration(st, k_configuration_fields) {}

void configuration_reader::read(stored_configuration& into) const { m_configuration.read(into); }

} // namespace bb::store
