#pragma once
/// `bankbench merge`: bringing the runs of another database into this one. A GPU is the same
/// GPU when its uuid and backend are; a run is the same run when its GPU, started_at,
/// experiment_sha256, host, Slurm job and array task and shard are, so merging twice adds nothing
/// the second time, and two shards that started one file in the same millisecond stay two runs.
#include <cstdint>
#include <string>
#include <vector>

#include "runner/store/database.hpp"

namespace bb::store {

/// What one merge added and what it found already there.
struct merge_counts {
  int gpus_added = 0;
  int runs_added = 0;
  int runs_present = 0;  ///< already there with every configuration
  int runs_extended = 0; ///< already there, but with fewer configurations (copied mid-run)
  int configurations_added = 0;
  std::int64_t metric_rows_added = 0, sample_rows_added = 0;
  int line_collections_added = 0;   ///< configurations whose lines (`run --lines`) were copied
  std::int64_t line_rows_added = 0; ///< their line_counters rows
  int baselines_added = 0, baselines_present = 0;
  std::vector<std::string> baselines_differing; ///< same name, other content: the one in `into` is kept
};

/// How the rows are copied: `fastest` attaches the source read-only to `into` and copies the
/// measurements of many configurations in one statement, where this SQLite takes URI file names
/// (Debian's does); `row_by_row` reads them over `source`'s own connection. Both copy the same.
enum class merge_method { fastest, row_by_row };

/// Copies into `into` whatever of `source` it lacks, in one transaction: all of it or, when
/// anything fails, nothing. `source` is only read. A configuration's lines come with it, and
/// lines `source` holds for a configuration already in `into` without them are added to it.
merge_counts merge_database(database& into, const database& source, merge_method method = merge_method::fastest);

} // namespace bb::store
