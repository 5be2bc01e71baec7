#pragma once
/// `bankbench techniques`: the techniques page (docs/techniques.md). One section per experiment:
/// its common claim, the measured shared-memory signature, time and share of the reference copy
/// bandwidth of every configuration, and whether each expectation held or the hardware disagrees.
#include <cstdint>
#include <ostream>
#include <vector>

#include "runner/registry/registry.hpp"
#include "runner/store/database.hpp"

namespace bb::render {

/// The runs the page shows: `run_ids` as given (each must exist; store_error otherwise), or, when
/// empty, the latest run of each experiment (the latest completed one where there is one) on the
/// GPU of the newest measured run (a model-backend GPU only when nothing was measured). Ordered
/// by experiment path, then name. usage_error when the database holds no runs.
std::vector<std::int64_t> technique_runs(const store::database& db, const std::vector<std::int64_t>& run_ids);

/// Writes the page in Markdown for `run_ids` (technique_runs picks them when empty). Each run's
/// stored experiment text is re-parsed against `reg` for its `claim:`s; a text that no longer
/// parses is shown without them. The reference bandwidth of a GPU is the best bandwidth of any
/// finished `reference` configuration on it in the database.
void write_techniques(const store::database& db, const std::vector<std::int64_t>& run_ids, const registry& reg,
                      std::ostream& out);

} // namespace bb::render
