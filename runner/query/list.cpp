#include "runner/query/list.hpp"

#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "runner/common/host_info.hpp"
#include "runner/common/process.hpp"
#include "runner/query/cells.hpp"

namespace bb::query {

namespace {

void write_or_say_empty(const text_table& table, std::ostream& out, output_format format, const char* what,
                        const std::string& path) {
  if (table.rows() == 0 && !for_programs(format))
    out << fmt::format("no {} in {} yet\n", what, path);
  else
    table.write(out, format);
}

} // namespace

bool is_stale(const store::run_row& r) {
  if (r.status != run_status::running || r.run.pid <= 0 || r.run.host.empty() || r.run.host != host_name())
    return false;
  return !process_alive(r.run.pid);
}

void list_runs(const store::database& db, std::ostream& out, output_format format) {
  std::vector<column> columns = {{"id", align::right},
                                 {"session", align::right, "session_id"},
                                 {"started", align::left, "started_at"},
                                 {"status", align::left},
                                 {"experiment", align::left},
                                 {"gpu", align::left},
                                 {"commit", align::left, "git_commit"},
                                 {"fingerprint", align::left},
                                 {"configs", align::right, "configurations"},
                                 {"failed", align::right, "failed_configurations"},
                                 {"expect failed", align::right, "failed_expectations"}};
  // Programs read a run's kind ("run" or "attach") from a column of its own; people see an attach
  // run marked after its name, so the table keeps its width for the runs of `bankbench run`.
  const bool programs = for_programs(format);
  if (programs) columns.push_back({"kind", align::left});
  text_table table(std::move(columns));
  auto text = [](const std::string& t, std::string shown) {
    return t.empty() ? cell("-", nullptr) : cell(std::move(shown), t);
  };
  for (const auto& row : db.runs()) {
    const auto& r = row.run;
    // Twelve hex digits name a commit unambiguously in any repository this size; programs get it whole.
    const std::string dirty = r.git_dirty ? "-dirty" : "";
    cell commit = r.git_commit.empty() ? cell("-" + dirty, nullptr)
                                       : cell(r.git_commit.substr(0, 12) + dirty, r.git_commit + dirty);
    // A run still 'running' whose process is gone here (kill -9, a crash, a power cut) is stale.
    const bool stale = is_stale(row);
    const bool attach = r.kind == "attach";
    std::vector<cell> cells = {
        count(row.id),
        r.session_id == 0 ? count(std::nullopt) : count(r.session_id),
        r.started_at,
        stale ? cell("stale (--resume " + std::to_string(row.id) + ")", "stale") : cell(name_of(row.status)),
        attach ? cell(r.experiment_name + " (attach)", r.experiment_name) : cell(r.experiment_name),
        row.gpu.name,
        std::move(commit),
        text(r.fingerprint, r.fingerprint.substr(0, 12)),
        count(row.configurations),
        count(row.failed_configurations),
        count(row.failed_expectations)};
    if (programs) cells.emplace_back(r.kind);
    table.add_row(std::move(cells));
  }
  write_or_say_empty(table, out, format, "runs", db.path());
}

void list_gpus(const store::database& db, std::ostream& out, output_format format) {
  text_table table({{"id", align::right},
                    {"name", align::left},
                    {"chip", align::left},
                    {"cc", align::left},
                    {"SMs", align::right, "sm_count"},
                    {"memory GiB", align::right, "memory_bytes"},
                    {"L2 MiB", align::right, "l2_bytes"},
                    {"driver", align::left, "driver_version"},
                    {"backend", align::left},
                    {"uuid", align::left},
                    {"first seen", align::left, "first_seen_at"},
                    {"runs", align::right}});
  auto bytes = [](std::uint64_t b, double unit) {
    return cell(fmt::format("{:.1f}", static_cast<double>(b) / unit), static_cast<std::int64_t>(b));
  };
  for (const auto& row : db.gpus()) {
    const auto& g = row.gpu;
    table.add_row({count(row.id), g.name, g.chip.empty() ? cell("-", nullptr) : cell(g.chip),
                   fmt::format("{}.{}", g.cc_major, g.cc_minor), count(g.sm_count),
                   bytes(g.memory_bytes, 1024.0 * 1024 * 1024), bytes(g.l2_bytes, 1024.0 * 1024),
                   g.driver_version.empty() ? cell("-", nullptr) : cell(g.driver_version), g.backend, g.uuid,
                   row.first_seen_at, count(row.runs)});
  }
  write_or_say_empty(table, out, format, "GPUs", db.path());
}

} // namespace bb::query
