#pragma once
/// `bankbench list runs` and `bankbench list gpus`: what a database holds, one line each.
#include <ostream>

#include "runner/query/table.hpp"
#include "runner/store/database.hpp"

namespace bb::query {

/// A run left 'running' by a process of this host that no longer exists (killed with -9, crashed).
bool is_stale(const store::run_row& r);

/// Every run, newest first: id, start, status, experiment, GPU, commit and failure counts.
/// With no runs, text and markdown say so in one line; csv prints the header alone.
void list_runs(const store::database& db, std::ostream& out, output_format format = output_format::table);

/// Every GPU in the order first seen, with the number of runs on it.
void list_gpus(const store::database& db, std::ostream& out, output_format format = output_format::table);

} // namespace bb::query
