#include "query/list.hpp"

#include <fmt/format.h>

#include "common/host_info.hpp"
#include "common/process.hpp"

namespace bb::query {

namespace {

void write_or_say_empty(const text_table& table, std::ostream& out, output_format format, const char* what,
                        const std::string& path) {
  if (table.rows() == 0 && format != output_format::csv) out << fmt::format("no {} in {} yet\n", what, path);
  else table.write(out, format);
}

} // namespace

bool is_stale(const store::run_row& r) {
  if (r.status != "running" || r.run.pid <= 0 || r.run.host.empty() || r.run.host != host_name()) return false;
  return !process_alive(r.run.pid);
}

void list_runs(const store::database& db, std::ostream& out, output_format format) {
  text_table table({{"id", align::right},
                    {"session", align::right},
                    {"started", align::left},
                    {"status", align::left},
                    {"experiment", align::left},
                    {"gpu", align::left},
                    {"commit", align::left},
                    {"fingerprint", align::left},
                    {"configs", align::right},
                    {"failed", align::right},
                    {"expect failed", align::right}});
  for (const auto& r : db.runs()) {
    // Twelve hex digits name a commit unambiguously in any repository this size.
    std::string commit = r.run.git_commit.empty() ? "-" : r.run.git_commit.substr(0, 12);
    if (r.run.git_dirty) commit += "-dirty";
    // A run still 'running' whose process is gone here (kill -9, a crash, a power cut) is stale.
    const std::string status = is_stale(r) ? "stale (--resume " + std::to_string(r.id) + ")" : r.status;
    table.add_row({std::to_string(r.id), r.run.session_id == 0 ? "-" : std::to_string(r.run.session_id),
                   r.run.started_at, status, r.run.experiment_name, r.gpu.name, commit,
                   r.run.fingerprint.empty() ? "-" : r.run.fingerprint.substr(0, 12), std::to_string(r.configurations),
                   std::to_string(r.failed_configurations),
                   std::to_string(r.failed_expectations)});
  }
  write_or_say_empty(table, out, format, "runs", db.path());
}

void list_gpus(const store::database& db, std::ostream& out, output_format format) {
  text_table table({{"id", align::right},
                    {"name", align::left},
                    {"chip", align::left},
                    {"cc", align::left},
                    {"SMs", align::right},
                    {"memory GiB", align::right},
                    {"L2 MiB", align::right},
                    {"driver", align::left},
                    {"backend", align::left},
                    {"uuid", align::left},
                    {"first seen", align::left},
                    {"runs", align::right}});
  for (const auto& row : db.gpus()) {
    const auto& g = row.gpu;
    table.add_row({std::to_string(row.id), g.name, g.chip.empty() ? "-" : g.chip,
                   fmt::format("{}.{}", g.cc_major, g.cc_minor), std::to_string(g.sm_count),
                   fmt::format("{:.1f}", static_cast<double>(g.memory_bytes) / (1024.0 * 1024 * 1024)),
                   fmt::format("{:.1f}", static_cast<double>(g.l2_bytes) / (1024.0 * 1024)),
                   g.driver_version.empty() ? "-" : g.driver_version, g.backend, g.uuid, row.first_seen_at,
                   std::to_string(row.runs)});
  }
  write_or_say_empty(table, out, format, "GPUs", db.path());
}

} // namespace bb::query
