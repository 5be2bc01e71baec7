#pragma once
/// `bankbench show`: one run as a header and a table, one row per configuration.
#include <cstdint>
#include <ostream>

#include "query/table.hpp"
#include "store/database.hpp"

namespace bb::query {

/// Prints run `run_id`: a header (experiment, GPU, times, status, commit), one row per
/// configuration in seq order with metric means over launches, and a line counting
/// configurations by status and expectations met and failed. csv prints the rows alone, with
/// unrounded numbers. Throws bb::store_error when there is no such run.
void show_run(const store::database& db, std::int64_t run_id, std::ostream& out,
              output_format format = output_format::table);

} // namespace bb::query
