#include "runner/store/lines.hpp"

#include <array>
#include <utility>

#include <fmt/format.h>

#include "runner/common/error.hpp"
#include "runner/store/database.hpp"
#include "runner/store/records.hpp"
#include "runner/store/samples.hpp"
#include "runner/store/sqlite.hpp"

namespace bb::store {

namespace {
constexpr std::array<std::pair<lines_status, const char*>, 5> k_names{{{lines_status::ok, "ok"},
                                                                       {lines_status::no_line_info, "no_line_info"},
                                                                       {lines_status::no_records, "no_records"},
                                                                       {lines_status::failed, "failed"},
                                                                       {lines_status::unsupported, "unsupported"}}};

std::int64_t to_int64(std::uint64_t v) { return static_cast<std::int64_t>(v); }
} // namespace

const char* name_of(lines_status s) {
  for (const auto& [status, name] : k_names)
    if (status == s) return name;
  return "failed";
}

std::optional<lines_status> lines_status_named(const std::string& name) {
  for (const auto& [status, text] : k_names)
    if (name == text) return status;
  return std::nullopt;
}

void add_lines(database& db, std::int64_t run_id, int seq, const line_collection& lines) {
  const std::string operation = fmt::format("recording the lines of configuration {} of run {}", seq, run_id);
  sqlite3* h = db.handle();
  const std::string& path = db.path();
  sqlite::transaction tx(h, path, operation);
  sqlite::statement find(h, path, "SELECT id FROM configurations WHERE run_id = ? AND seq = ?", operation);
  find.bind(run_id, seq);
  if (!find.step()) throw store_error(fmt::format("{}: {}: no such configuration", path, operation));
  const std::int64_t id = find.int64(0);
  sqlite::statement drop_rows(h, path, "DELETE FROM line_counters WHERE configuration_id = ?", operation);
  drop_rows.run(id);
  sqlite::statement drop(h, path, "DELETE FROM line_collections WHERE configuration_id = ?", operation);
  drop.run(id);
  sqlite::statement head(h, path,
                         "INSERT INTO line_collections (configuration_id, status, note, kernel, instructions, "
                         "collect_ms, collected_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                         operation);
  head.run(id, std::string(name_of(lines.status)), sqlite::null_if_empty(lines.note),
           sqlite::null_if_empty(lines.kernel), static_cast<std::int64_t>(lines.rows.size()), lines.collect_ms,
           utc_now_iso8601());
  sqlite::statement row(h, path,
                        "INSERT INTO line_counters (configuration_id, function, pc, file, line, opcode, kind, "
                        "executions, threads, wavefronts, ideal, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        operation);
  for (const auto& r : lines.rows)
    row.run(id, r.function, static_cast<std::int64_t>(r.pc), r.file, r.line, r.opcode, r.kind, to_int64(r.executions),
            to_int64(r.threads), to_int64(r.wavefronts), to_int64(r.ideal), r.source);
  db.check_file_identity();
  tx.commit();
}

std::vector<int> measured_sequences(database& db, std::int64_t run_id) {
  const std::string operation = fmt::format("reading the measured configurations of run {}", run_id);
  sqlite::statement st(
      db.handle(), db.path(),
      "SELECT seq FROM configurations WHERE run_id = ? AND status IN ('ok', 'unverified') ORDER BY seq", operation);
  st.bind(run_id);
  std::vector<int> out;
  while (st.step()) out.push_back(st.int32(0));
  return out;
}

std::optional<line_collection> read_lines(const database& db, std::int64_t configuration_id) {
  const std::string operation = fmt::format("reading the lines of configuration {}", configuration_id);
  sqlite3* h = db.read_handle();
  const std::string& path = db.path();
  if (db.user_version() < 8) return std::nullopt;
  sqlite::statement head(h, path,
                         "SELECT status, note, kernel, collect_ms FROM line_collections WHERE configuration_id = ?",
                         operation);
  head.bind(configuration_id);
  if (!head.step()) return std::nullopt;
  line_collection out;
  out.status = lines_status_named(head.text(0)).value_or(lines_status::failed);
  out.note = head.is_null(1) ? "" : head.text(1);
  out.kernel = head.is_null(2) ? "" : head.text(2);
  out.collect_ms = head.optional_real(3).value_or(0);
  sqlite::statement rows(
      h, path,
      "SELECT function, pc, file, line, opcode, kind, executions, threads, wavefronts, ideal, source "
      "FROM line_counters WHERE configuration_id = ? ORDER BY function, pc",
      operation);
  rows.bind(configuration_id);
  while (rows.step()) {
    line_row r;
    r.function = rows.text(0);
    r.pc = static_cast<std::uint32_t>(rows.int64(1));
    r.file = rows.text(2);
    r.line = rows.int32(3);
    r.opcode = rows.text(4);
    r.kind = rows.text(5);
    r.executions = static_cast<std::uint64_t>(rows.int64(6));
    r.threads = static_cast<std::uint64_t>(rows.int64(7));
    r.wavefronts = static_cast<std::uint64_t>(rows.int64(8));
    r.ideal = static_cast<std::uint64_t>(rows.int64(9));
    r.source = rows.text(10);
    out.rows.push_back(std::move(r));
  }
  return out;
}

} // namespace bb::store
