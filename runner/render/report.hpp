#pragma once
/// `bankbench report`: one HTML file that needs nothing else to be read, offline included: inline
/// CSS and SVG charts, no script. Per experiment: wavefronts and conflicts per request by variant,
/// time and bandwidth against size, the experiment across GPUs (and the bank model), predicted
/// against measured, failed expectations and regressions highlighted, and the source lines of
/// configurations with per-line data (`run --lines`), shaded by their share of the excess.
#include <ostream>
#include <string>
#include <vector>

#include "runner/query/regress.hpp"
#include "runner/store/database.hpp"

namespace bb::render {

struct report_options {
  std::vector<std::string> experiments; ///< empty: every experiment in the database
  std::string generated_at;             ///< shown in the header
  query::regress_options regress;       ///< how the latest run is judged against the one before
};

/// What the page highlights, for the command's summary line.
struct report_summary {
  int experiments = 0, charts = 0, failed_expectations = 0, regressions = 0;
};

/// Writes the page. Throws bb::usage_error when an experiment asked for has no runs.
report_summary write_report(const store::database& db, const report_options& options, std::ostream& out);

} // namespace bb::render
