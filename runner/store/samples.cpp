#include "runner/store/samples.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <map>
#include <numeric>
#include <set>

#include <fmt/format.h>

namespace bb::store {

double median(std::vector<double> values) {
  const std::size_t n = values.size();
  if (n == 0) return 0;
  std::sort(values.begin(), values.end());
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double fastest_placement_median(const std::vector<double>& samples_ns, const std::vector<int>& placement) {
  std::map<int, std::vector<double>> by_placement;
  for (std::size_t i = 0; i < samples_ns.size(); ++i)
    by_placement[i < placement.size() ? placement[i] : 0].push_back(samples_ns[i]);
  double fastest = 0;
  for (auto& [index, samples] : by_placement) {
    const double m = median(std::move(samples));
    if (fastest == 0 || m < fastest) fastest = m;
  }
  return fastest;
}

timing_record summarize_samples(std::vector<double> samples_ns, std::vector<int> placement) {
  timing_record t;
  const std::size_t n = samples_ns.size();
  placement.resize(n, placement.empty() ? 0 : placement.back());
  t.median_ns = fastest_placement_median(samples_ns, placement);
  t.placements = n == 0 ? 0 : static_cast<int>(std::set<int>(placement.begin(), placement.end()).size());
  t.samples_ns = samples_ns;
  t.sample_placement = std::move(placement);
  if (n == 0) return t;
  std::sort(samples_ns.begin(), samples_ns.end()); // the mean summed in ascending order
  t.min_ns = samples_ns.front();
  t.max_ns = samples_ns.back();
  t.mean_ns = std::accumulate(samples_ns.begin(), samples_ns.end(), 0.0) / static_cast<double>(n);
  if (n > 1) {
    double sum_sq = 0;
    for (double s : samples_ns) sum_sq += (s - t.mean_ns) * (s - t.mean_ns);
    t.stddev_ns = std::sqrt(sum_sq / static_cast<double>(n - 1));
  }
  if (t.median_ns > 0) t.spread = (t.max_ns - t.min_ns) / t.median_ns;
  return t;
}

double bandwidth_gbps(std::uint64_t bytes, double ns) { return ns > 0 ? static_cast<double>(bytes) / ns : 0.0; }

std::string utc_now_iso8601() {
  using namespace std::chrono;
  const auto now = system_clock::now();
  const std::time_t seconds = system_clock::to_time_t(now);
  const auto millis = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                     utc.tm_hour, utc.tm_min, utc.tm_sec, millis);
}

} // namespace bb::store
