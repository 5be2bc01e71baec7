#pragma once
/// Two sides' per-line data (`run --lines`) matched for `compare runs A B --lines` and `regress
/// --lines`: configurations as regress matches them (experiment, variant, parameters; the same
/// architecture first), source lines by file name, function and line number. When a function's
/// lines differ between the sides but its shared-memory instructions are the same opcodes in the
/// same pc order, the source moved: instruction i of one side is matched with instruction i of the
/// other, and the lines they map to are compared ("lines moved (+1)").
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runner/query/side.hpp"
#include "runner/store/database.hpp"

namespace bb::query {

/// One side's numbers for a source line: its instructions summed.
struct line_numbers {
  int line = 0;
  std::uint64_t executions = 0; ///< warp instructions executed: requests
  std::uint64_t excess = 0;     ///< wavefronts beyond the ideal
  /// Excess wavefronts per execution: what the gate judges, as regress judges wavefronts per request.
  [[nodiscard]] double per_execution() const {
    return executions == 0 ? 0 : static_cast<double>(excess) / static_cast<double>(executions);
  }
};

/// A source line of a function, on both sides or on one.
struct line_match {
  std::string file;     ///< the file's name without its folder: the sides' temp folders differ
  std::string function; ///< demangled
  std::string text;     ///< the line's text, the candidate's where both have one
  std::string opcodes;  ///< "LDS x4"
  std::optional<line_numbers> baseline, candidate;
};

/// A function whose lines moved: each baseline line and the candidate line it became.
struct line_move {
  std::string file, function;
  std::optional<int> offset;                  ///< the shift where every line moved by the same
  std::vector<std::pair<int, int>> lines;     ///< (baseline, candidate), ascending
  [[nodiscard]] std::string describe() const; ///< "lines moved (+1)", "lines moved (30 -> 31, 38 -> 40)"
};

/// One configuration with per-line data on both sides.
struct configuration_line_diff {
  std::string experiment, variant, params_json, arch;
  std::int64_t baseline_run = 0, candidate_run = 0;
  std::vector<line_match> lines; ///< by file, function, then the candidate's line (else the baseline's)
  std::vector<line_move> moves;
};

struct line_diff {
  std::string baseline_label, baseline_description, candidate_label, candidate_description;
  std::vector<configuration_line_diff> configurations; ///< in the candidate's order
  int without_lines = 0; ///< configuration pairs where a side has no usable line collection
};

/// Mangled function name `mangled` with each anonymous namespace spelled as g++ spells it
/// (`_GLOBAL__N_1`): nvcc names one after the file it was compiled from (`_GLOBAL__N__<hash>_8_naive_cu_
/// <hash>`), so the same kernel built into bankbench and compiled from its code twin (`run --backend
/// model --model-source code`) would not otherwise match. Sides are matched by this name.
std::string without_file_ids(const std::string& mangled);

/// Matches the per-line data of `baseline`'s and `candidate`'s configurations (rows read from the
/// database, with their configuration ids). Throws bb::usage_error, saying how to collect them,
/// when either side has no per-line data at all.
line_diff diff_lines(const store::database& db, const side& baseline, const side& candidate);

/// The side `spec` names as per-line data needs it: the configurations of its runs (a saved
/// baseline: the runs it was saved from), every metric read. `anchor` as resolve_spec() takes it.
side lines_side(const store::database& db, const std::string& spec, const side* anchor = nullptr);

} // namespace bb::query
