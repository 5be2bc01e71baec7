#pragma once
/// Metric names and pass counts for a chip through the CUPTI host API, with no GPU needed.
#include <cstddef>
#include <string>
#include <vector>

namespace bb::profile {

struct offline_check {
  std::vector<std::string> known;   ///< the names the chip has, in the order given
  std::vector<std::string> unknown; ///< the names it does not have
  std::size_t passes = 0;           ///< replay passes the known names need together
};

/// Validates `metrics` for `chip` (e.g. "GH100", "GA100", "GB100") and counts the passes the
/// known ones need. Throws environment_error when the host API cannot start (libnvperf_host
/// missing or the chip unknown to this CUPTI).
offline_check check_offline(const std::string& chip, const std::vector<std::string>& metrics);

} // namespace bb::profile
