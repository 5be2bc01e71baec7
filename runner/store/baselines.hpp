#pragma once
/// Named baselines (schema version 2): snapshots of results that regress compares against,
/// stored as the JSON document `bankbench baseline export` writes.
#include <optional>
#include <string>
#include <vector>

#include "runner/store/database.hpp"

namespace bb::store {

/// One row of the baselines table.
struct baseline_entry {
  std::string name, created_at;
  std::string source;        ///< what it was saved from: "run 12", "file sm_90.json"
  std::string experiments;   ///< "transpose", or "reduce, transpose"
  std::string architectures; ///< "sm_90"
  std::string content_json;  ///< the document itself
};

/// Every baseline, by name.
std::vector<baseline_entry> list_baselines(const database& db);
/// The baseline called `name`; empty when there is none.
std::optional<baseline_entry> find_baseline(const database& db, const std::string& name);
/// Stores `b`. A baseline of the same name is replaced when `replace`; otherwise nothing is
/// written and false is returned.
bool save_baseline(database& db, const baseline_entry& b, bool replace);
/// Removes the baseline; false when there was none.
bool delete_baseline(database& db, const std::string& name);

} // namespace bb::store
