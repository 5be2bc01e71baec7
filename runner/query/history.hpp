#pragma once
/// `bankbench history`: one metric of one configuration across runs and commits, as a table and a
/// bar plot in the terminal (render/history_svg.hpp draws it as an SVG chart).
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "runner/store/database.hpp"
#include "runner/store/results.hpp"

namespace bb::query {

struct history_query {
  std::string variant;                                     ///< full ("transpose/padded") or short ("padded")
  std::vector<std::pair<std::string, std::string>> params; ///< "n=4096" as ("n", "4096"); every one must match
  std::string metric = "load_wavefronts_per_request";
  std::string experiment; ///< empty: any
  std::string gpu;        ///< empty: any; else an architecture ("sm_90") or part of the GPU's name
  std::size_t limit = 0;  ///< the newest N runs; 0: all
};

struct history_point {
  store::run_info run;
  std::string params_json;
  std::optional<double> value, min, max; ///< over launches; median, min and max of the samples for times
  int launches = 0;
};

/// "n=4096" -> ("n", "4096"); throws bb::usage_error for text without '='.
std::pair<std::string, std::string> parse_param_filter(const std::string& text);

/// Every --param of a command line: a name given twice with two values matches no configuration,
/// so it is a bb::usage_error naming both; the same NAME=VALUE twice is kept once.
std::vector<std::pair<std::string, std::string>> parse_param_filters(const std::vector<std::string>& texts);

/// True when `params_json` has every parameter of `filters` with that value (a number or other
/// JSON value compared as JSON, else as the text).
bool params_match(const std::string& params_json, const std::vector<std::pair<std::string, std::string>>& filters);

/// The metric of the one configuration that `q` names, in every run that has it, oldest first.
/// Throws bb::usage_error when nothing matches, or when several configurations do (naming them).
std::vector<history_point> metric_history(const store::database& db, const history_query& q);

/// `format`: "table" (with a bar per run), "markdown", "csv" or "json".
void write_history(const std::vector<history_point>& points, const history_query& q, std::ostream& out,
                   const std::string& format);

/// What the points are of, e.g. "ld conflicts/req of transpose padded n=8192
/// (load_conflicts_per_request)": the table's heading and the chart's title. `points` not empty.
std::string history_subject(const std::vector<history_point>& points, const history_query& q);

} // namespace bb::query
