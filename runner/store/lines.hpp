#pragma once
/// Shared-memory wavefronts per SASS instruction and source line (`run --lines`), schema version 8:
/// the tables line_collections and line_counters (docs/database.md).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace bb::store {

class database;

/// One shared-memory instruction of a configuration's kernel, one launch's worth.
struct line_row {
  std::string function; ///< mangled name
  std::uint32_t pc = 0; ///< byte offset in the function
  std::string file;     ///< "" without line info
  int line = 0;         ///< 0 without line info
  std::string opcode;   ///< SASS mnemonic; "" where not disassembled
  std::string kind;     ///< lds, sts, atoms, ldsm, stsm, ldgsts, gmma or shared
  std::uint64_t executions = 0, threads = 0, wavefronts = 0, ideal = 0;
  std::string source; ///< the line's text when it was collected (the file may change later); "" unread
  /// Wavefronts beyond the ideal: what bank conflicts cost this instruction.
  [[nodiscard]] std::uint64_t excess() const { return wavefronts > ideal ? wavefronts - ideal : 0; }
};

/// How one configuration's collection went.
enum class lines_status { ok, no_line_info, no_records, failed, unsupported };
const char* name_of(lines_status s);
/// The status named `name`; nullopt for any other text.
std::optional<lines_status> lines_status_named(const std::string& name);

struct line_collection {
  lines_status status = lines_status::ok;
  std::string note;   ///< why, for a status other than ok
  std::string kernel; ///< the instrumented function
  double collect_ms = 0;
  std::vector<line_row> rows;
};

/// Stores configuration `seq` of run `run_id`'s lines in one transaction, replacing any stored
/// before. Throws store_error where the configuration is not stored.
void add_lines(database& db, std::int64_t run_id, int seq, const line_collection& lines);

/// Sequence numbers of run `run_id`'s configurations that ran to a result (ok or unverified),
/// ascending: the ones whose lines can be collected.
std::vector<int> measured_sequences(database& db, std::int64_t run_id);

/// What is stored for one configuration; nullopt where its lines were never collected.
std::optional<line_collection> read_lines(const database& db, std::int64_t configuration_id);

} // namespace bb::store
