#pragma once
/// What the results commands accept where they need runs (show, regress --baseline X --candidate Y,
/// compare runs A B, baseline save NAME SPEC, export, techniques): a run, the latest session, a
/// session, an experiment's newest runs, a named baseline or a commit.
#include <optional>
#include <string>
#include <vector>

#include "runner/query/side.hpp"
#include "runner/store/database.hpp"

namespace bb::query {

/// What a SPEC names. One grammar for every command that takes runs (show, compare, regress,
/// baseline save, export, techniques):
///  - "12" or "run:12": run 12;
///  - "latest": every run of the newest session (one `bankbench run`); with an `anchor` (the side
///    it is compared with), the newest run before the anchor's runs of each of its experiments on
///    the same architecture;
///  - "session:N": every run of session N;
///  - "experiment:NAME": the newest run of experiment NAME on each GPU (the model included);
///  - "baseline:NAME", or NAME of a saved baseline;
///  - "commit:SHA", or four or more hex digits that begin a run's commit: the newest run of each
///    experiment and GPU at that commit.
/// A run id wins over a baseline name, and a baseline name over a commit.
struct selection {
  std::string label;                 ///< "run 12", "session 3", "commit 0a1b2c3d4e5f", "baseline main"
  std::vector<store::run_info> runs; ///< oldest first; a baseline's: the runs it was saved from that the database holds
  std::string baseline_name;         ///< set when `spec` names a baseline
  std::optional<side> baseline;      ///< its saved configurations, read once
};

/// Resolves `spec`; throws bb::usage_error when nothing matches or a commit prefix is ambiguous.
selection resolve_spec(const store::database& db, const std::string& spec, const side* anchor = nullptr);

/// The side `spec` names: its runs with their results, or a baseline's saved configurations.
side select_side(const store::database& db, const std::string& spec, const store::result_query& query,
                 const side* anchor = nullptr);

/// The newest run of each experiment and GPU whose commit begins with `prefix` (case-insensitive).
std::vector<store::run_info> runs_at_commit(const std::vector<store::run_info>& runs, const std::string& prefix);

/// For each experiment and architecture of `anchor`, the newest run before the earliest of
/// `anchor`'s runs that is not one of them.
std::vector<store::run_info> runs_before(const std::vector<store::run_info>& runs,
                                         const std::vector<store::run_info>& anchor);

/// The newest run of `experiment` on each GPU (measured or model), oldest GPU first.
std::vector<store::run_info> latest_per_gpu(const std::vector<store::run_info>& runs, const std::string& experiment);

/// The runs `spec` names, without reading their results; a baseline names the runs it was saved
/// from, which must be in this database. Throws bb::usage_error when nothing matches.
std::vector<store::run_info> select_runs(const store::database& db, const std::string& spec);

/// The runs of `member`'s session (just `member` for a run written before sessions existed).
std::vector<store::run_info> runs_of_session(const std::vector<store::run_info>& runs, const store::run_info& member);

/// The runs of the newest session; empty when there are no runs.
std::vector<store::run_info> latest_session(const std::vector<store::run_info>& runs);

/// Run `spec` ("12" or "run:12") or "latest"; throws bb::usage_error when there is no such run.
store::run_info select_run(const std::vector<store::run_info>& runs, const std::string& spec,
                           const std::string& db_path);

} // namespace bb::query
