#pragma once
/// Printing regress results: aligned text for a terminal or a CI log, a GitHub markdown comment,
/// or JSON for scripts.
#include <ostream>
#include <string>

#include "runner/query/regress.hpp"

namespace bb::query {

/// `format`: "table", "markdown", "csv" or "json". Every section is written, empty ones as "none",
/// so that a reader sees what was looked at; the last line (table, markdown) gives the verdict.
/// csv is the findings alone; json is the whole result, findings as csv's records.
void write_regress(const regress_result& r, std::ostream& out, const std::string& format);

/// A relative change as "+12.5%", or "from 0" when the baseline was 0.
std::string change_cell(const std::optional<double>& change);

/// A value with four significant digits, whole numbers from 10000 up: "0.1172", "32", "61733".
std::string value_cell(const std::optional<double>& value, double scale = 1);

} // namespace bb::query
