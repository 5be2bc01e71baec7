#pragma once
/// The statistics regress needs: spreads of repeated measurements and a rank test on timings.
#include <span>
#include <vector>

#include "runner/store/samples.hpp"

namespace bb::query {

/// (max - min) / |mean|: how far repeated values of one quantity lie apart, relative to it;
/// 0 when the mean is 0 (all values 0 for counters, which are never negative).
double relative_spread(double min, double max, double mean);

/// Relative spread of `values` (fewer than two values: 0).
double relative_spread(std::span<const double> values);

/// Median (mean of the middle two for an even count); 0 for no values.
using store::median;

/// Mann-Whitney U test of two samples: U of `a`, the z score of the normal approximation with
/// the tie correction and a continuity correction, and the two-sided p value.
struct rank_test {
  double u = 0, z = 0, p = 1;
};

/// p is 1 when either sample is empty or every value is tied.
rank_test mann_whitney_u(std::span<const double> a, std::span<const double> b);

} // namespace bb::query
