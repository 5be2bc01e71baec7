#pragma once
/// `bankbench export`: results in a long layout that pandas, R or a spreadsheet read directly:
/// one row per metric value, timed sample, configuration or shared-memory instruction (the lines of
/// `run --lines`), with what it belongs to in columns,
/// each parameter in a column of its own (param_<name>) beside params_json.
#include <cstdint>
#include <ostream>
#include <string_view>
#include <vector>

#include "runner/store/database.hpp"
#include "runner/store/long_rows.hpp"
#include "runner/query/table.hpp"

namespace bb::query {

/// "metrics", "samples", "configurations" or "lines"; throws bb::usage_error otherwise.
store::long_table parse_long_table(std::string_view name);

/// Writes the rows of `run_ids` (every run when empty): csv with one header row (RFC 4180), json
/// as an array of objects with the same keys in the same order, numbers as numbers and NULL as
/// null (both streamed), or a table or markdown table for reading (held until the last row).
/// Returns the number of rows written.
std::size_t write_export(const store::database& db, const std::vector<std::int64_t>& run_ids, store::long_table table,
                         output_format format, std::ostream& out);

} // namespace bb::query
