#pragma once
/// Summaries of timing samples and the timestamps the database stores.
#include <cstdint>
#include <string>
#include <vector>

#include "store/records.hpp"

namespace bb::store {

/// Fills samples_ns, median_ns (mean of the middle two for an even count), min_ns, max_ns,
/// mean_ns, stddev_ns (sample standard deviation, n - 1; 0 for fewer than two samples) and
/// spread ((max - min) / median; 0 when the median is 0). No samples give all zeros.
/// Clocks, throttling and bandwidth are left for the caller.
timing_record summarize_samples(std::vector<double> samples_ns);

/// Bytes per nanosecond is gigabytes (1e9 bytes) per second; 0 when `ns` is not positive.
double bandwidth_gbps(std::uint64_t bytes, double ns);

/// Now, as "2026-11-21T08:30:12.123Z".
std::string utc_now_iso8601();

} // namespace bb::store
