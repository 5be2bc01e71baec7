#pragma once
/// The report's annotated source view: per configuration with per-line data (`run --lines`), its
/// kernel's shared-memory source lines in line order, each row shaded by its share of the
/// configuration's excess wavefronts, and the conflicts no address caused. Private to the report.
#include <string>
#include <vector>

#include "runner/store/database.hpp"
#include "runner/store/results.hpp"

namespace bb::render::report_lines {

/// The HTML for `rows` (configurations of the runs shown, in the order given): a heading and a
/// <details> block per configuration whose lines were collected; "" when none was.
std::string annotated_sources(const store::database& db, const std::vector<store::result_row>& rows);

} // namespace bb::render::report_lines
