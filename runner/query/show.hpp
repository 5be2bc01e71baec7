#pragma once
/// `bankbench show`: runs as a header and a table each, one row per configuration.
#include <cstdint>
#include <ostream>
#include <vector>

#include "runner/query/table.hpp"
#include "runner/store/database.hpp"

namespace bb::query {

/// Prints the runs `run_ids`. table and markdown: for each run a header (experiment, GPU, times,
/// status, commit), one row per configuration in seq order with metric means over launches, and a
/// line counting configurations by status and expectations met and failed. csv: one table of
/// every run's rows, unrounded, with a run_id column first when there are several. json:
/// {"runs": [...]}, each run with its GPU, its configurations as csv's records, and its counts.
/// Throws bb::usage_error when a run is not there.
void show_runs(const store::database& db, const std::vector<std::int64_t>& run_ids, std::ostream& out,
               output_format format = output_format::table);

/// show_runs() of one run.
inline void show_run(const store::database& db, std::int64_t run_id, std::ostream& out,
                     output_format format = output_format::table) {
  show_runs(db, {run_id}, out, format);
}

} // namespace bb::query
