#pragma once
/// Summaries of timing samples and the timestamps the database stores.
#include <cstdint>
#include <string>
#include <vector>

#include "runner/store/records.hpp"

namespace bb::store {

/// The median of a list (mean of the middle two for an even count); 0 for an empty one.
double median(std::vector<double> values);

/// The smallest of the medians of each placement's samples: `placement[i]` is the instance sample i
/// timed (launch::exec_options::placements). An empty `placement` puts every sample in one.
double fastest_placement_median(const std::vector<double>& samples_ns, const std::vector<int>& placement);

/// Fills samples_ns, sample_placement, placements (how many instances were timed), median_ns (the
/// fastest placement's median), min_ns, max_ns, mean_ns, stddev_ns (sample standard deviation,
/// n - 1; 0 for fewer than two samples) and spread ((max - min) / median; 0 when the median is 0),
/// all but median_ns over every sample. No samples give all zeros. Clocks, throttling and
/// bandwidth are left for the caller.
timing_record summarize_samples(std::vector<double> samples_ns, std::vector<int> placement = {});

/// Bytes per nanosecond is gigabytes (1e9 bytes) per second; 0 when `ns` is not positive.
double bandwidth_gbps(std::uint64_t bytes, double ns);

/// Now, as "2026-11-21T08:30:12.123Z".
std::string utc_now_iso8601();

} // namespace bb::store
