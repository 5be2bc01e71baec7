#include "runner/query/stats.hpp"

#include <algorithm>
#include <cmath>

namespace bb::query {

double relative_spread(double min, double max, double mean) {
  if (mean == 0) return 0;
  return (max - min) / std::abs(mean);
}

double relative_spread(std::span<const double> values) {
  if (values.size() < 2) return 0;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  double sum = 0;
  for (double v : values) sum += v;
  return relative_spread(*lo, *hi, sum / static_cast<double>(values.size()));
}

rank_test mann_whitney_u(std::span<const double> a, std::span<const double> b) {
  const double n1 = static_cast<double>(a.size()), n2 = static_cast<double>(b.size());
  if (a.empty() || b.empty()) return {};
  struct item {
    double value;
    bool first;
  };
  std::vector<item> all;
  for (double v : a) all.push_back({v, true});
  for (double v : b) all.push_back({v, false});
  std::sort(all.begin(), all.end(), [](const item& x, const item& y) { return x.value < y.value; });
  // Average ranks over ties; sum of t^3 - t over tie groups for the variance.
  double rank_sum_a = 0, ties = 0;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j].value == all[i].value) ++j;
    const double rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (std::size_t k = i; k < j; ++k)
      if (all[k].first) rank_sum_a += rank;
    const double t = static_cast<double>(j - i);
    ties += t * t * t - t;
    i = j;
  }
  rank_test r;
  r.u = rank_sum_a - n1 * (n1 + 1) / 2;
  const double n = n1 + n2;
  const double variance = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)));
  if (variance <= 0) return {r.u, 0, 1};
  const double diff = r.u - n1 * n2 / 2;
  const double corrected = std::max(0.0, std::abs(diff) - 0.5);
  r.z = std::copysign(corrected / std::sqrt(variance), diff);
  r.p = std::min(1.0, std::erfc(std::abs(r.z) / std::sqrt(2.0)));
  return r;
}

} // namespace bb::query
