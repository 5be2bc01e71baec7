#pragma once
/// Rows for `bankbench export`: every stored value with what it belongs to, one row per metric
/// value, timed sample or configuration, streamed run by run so that a large database never has
/// to fit in memory.
#include <cstdint>
#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "runner/store/database.hpp"

namespace bb::store {

/// Which rows: metric values, timed samples, configurations with their summary, or shared-memory
/// instructions with their source line (`run --lines`; a collection without instructions is one
/// row with its status and note).
enum class long_table { metrics, samples, configurations, lines };

/// A value as SQLite holds it.
using cell = std::variant<std::monostate, std::int64_t, double, std::string>;

/// The column names of `table`'s rows. The first columns, shared by every table, are run_id,
/// started_at, git_commit, git_dirty, host, gpu_name, gpu_uuid, backend, arch, experiment, seq,
/// variant, family, params_json, status.
std::vector<std::string> long_columns(long_table table);

/// Calls `row` once per row of `table` for each run of `run_ids` in turn; the cells are in
/// long_columns() order and valid during the call only.
void scan_long_rows(const database& db, long_table table, const std::vector<std::int64_t>& run_ids,
                    const std::function<void(const std::vector<cell>&)>& row);

/// The distinct params_json texts of the configurations of `run_ids`.
std::vector<std::string> distinct_params(const database& db, const std::vector<std::int64_t>& run_ids);

} // namespace bb::store
