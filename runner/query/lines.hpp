#pragma once
/// `bankbench lines`: the source lines of each configuration's kernel ranked by the shared-memory
/// wavefronts they took beyond the ideal (store/lines.hpp), with the source text, and the
/// configuration's hardware conflicts that no line's addresses account for.
#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "runner/query/table.hpp"
#include "runner/store/database.hpp"
#include "runner/store/lines.hpp"
#include "runner/store/results.hpp"

namespace bb::query {

struct lines_query {
  std::string run = "latest"; ///< a SPEC as select_runs() takes it
  std::string experiment;     ///< empty: any
  std::string variant;        ///< empty: any; else full ("source/two_way") or short ("two_way")
  std::vector<std::pair<std::string, std::string>> params; ///< every one must match
};

/// One source line of one configuration: the shared-memory instructions that map to it, summed.
struct source_line {
  std::string file; ///< as the line info names it; "" without line info
  int line = 0;
  std::string text;             ///< the line read from `file` where it is on disk, trimmed; else ""
  std::string opcodes;          ///< "LDS x4", "STS, ATOMS": each opcode with its instruction count
  std::string kinds;            ///< "lds", "lds, sts"
  int instructions = 0;         ///< SASS instructions on the line
  std::uint64_t executions = 0; ///< warp instructions executed, over its instructions
  std::uint64_t wavefronts = 0, ideal = 0;
  std::uint64_t excess = 0;    ///< sum of its instructions' wavefronts beyond their ideal
  std::optional<double> share; ///< of the configuration's excess, 0 to 1; none when that is 0
};

/// The range profiler's bank conflicts stored for a configuration: each counter that went into
/// the total, by its short name ("op_ld"), mean over launches.
struct hardware_conflicts {
  double total = 0;
  std::vector<std::pair<std::string, double>> parts;
};

/// One configuration whose lines were collected.
struct configuration_lines {
  std::int64_t run_id = 0, configuration_id = 0;
  std::string experiment;
  int seq = 0;
  std::string variant, params_json;
  store::lines_status status = store::lines_status::ok;
  std::string note;
  std::string kernel;                         ///< demangled where it can be ("two_way(float*, int)")
  std::string function;                       ///< as stored (mangled)
  std::vector<source_line> lines;             ///< every line, most excess first
  std::uint64_t excess = 0;                   ///< over every line
  std::optional<hardware_conflicts> hardware; ///< none where no conflict counter is stored
  /// Hardware conflicts minus the lines' excess: conflicts no address caused (arbitration with
  /// TMA or cp.async fills, tensor-core operand reads); none without hardware counters.
  [[nodiscard]] std::optional<double> residual() const {
    if (!hardware) return std::nullopt;
    return hardware->total - static_cast<double>(excess);
  }
};

/// The hardware conflicts among a configuration's stored metrics (name -> mean over launches):
/// l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum where it is stored, else the sum of its
/// per-operation counters (op_ld, op_st, op_atom, op_gmma: whichever are stored); none when none is.
std::optional<hardware_conflicts> hardware_conflicts_of(const std::vector<std::pair<std::string, double>>& metrics);

/// Groups a configuration's instructions by source line and ranks the lines by excess (then
/// wavefronts, then file and line). `source_text(file, line)` gives a line's text.
std::vector<source_line> rank_lines(const std::vector<store::line_row>& rows,
                                    const std::function<std::string(const std::string&, int)>& source_text);

/// A reader of source lines (file, line) -> trimmed text, each file read once; "" for a file or
/// line it cannot read.
std::function<std::string(const std::string&, int)> source_reader();

/// "run 3 has no per-line data; collect it with: bankbench run probe.yaml --lines", for every run
/// of `runs` (their experiment files, each once).
std::string no_lines_message(const store::database& db, const std::vector<store::run_info>& runs);

/// A mangled name demangled ("_Z7two_wayPfi" -> "two_way(float*, int)"); other text as it is.
std::string demangled(const std::string& name);

/// The configurations of `q`'s runs that match its filters and have a line collection, in run and
/// seq order, with their lines read and ranked (source text read from the files on disk). Throws
/// bb::usage_error when no configuration matches the filters, and when none that matches has line
/// data ("run N has no per-line data; collect it with: bankbench run EXPERIMENT --lines").
std::vector<configuration_lines> select_lines(const store::database& db, const lines_query& q);

/// Prints `configurations`, the first `top` lines of each (0: every line). table and markdown: per
/// configuration a header (run, variant, parameters, kernel), the ranked lines and a residual row
/// where hardware conflicts are stored; a configuration whose collection is not ok gets its note.
/// csv: one table, one row per line, residual or configuration without lines. json:
/// {"configurations": [...]}, each with its lines.
void write_lines(const std::vector<configuration_lines>& configurations, std::size_t top, std::ostream& out,
                 output_format format);

} // namespace bb::query
