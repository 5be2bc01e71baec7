#include "store/samples.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <numeric>

#include <fmt/format.h>

namespace bb::store {

timing_record summarize_samples(std::vector<double> samples_ns) {
  timing_record t;
  t.samples_ns = samples_ns;
  const std::size_t n = samples_ns.size();
  if (n == 0) return t;
  std::sort(samples_ns.begin(), samples_ns.end());
  t.min_ns = samples_ns.front();
  t.max_ns = samples_ns.back();
  t.median_ns = n % 2 == 1 ? samples_ns[n / 2] : (samples_ns[n / 2 - 1] + samples_ns[n / 2]) / 2;
  t.mean_ns = std::accumulate(samples_ns.begin(), samples_ns.end(), 0.0) / static_cast<double>(n);
  if (n > 1) {
    double sum_sq = 0;
    for (double s : samples_ns) sum_sq += (s - t.mean_ns) * (s - t.mean_ns);
    t.stddev_ns = std::sqrt(sum_sq / static_cast<double>(n - 1));
  }
  if (t.median_ns > 0) t.spread = (t.max_ns - t.min_ns) / t.median_ns;
  return t;
}

double bandwidth_gbps(std::uint64_t bytes, double ns) {
  return ns > 0 ? static_cast<double>(bytes) / ns : 0.0;
}

std::string utc_now_iso8601() {
  using namespace std::chrono;
  const auto now = system_clock::now();
  const std::time_t seconds = system_clock::to_time_t(now);
  const auto millis = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", utc.tm_year + 1900, utc.tm_mon + 1,
                     utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, millis);
}

} // namespace bb::store
