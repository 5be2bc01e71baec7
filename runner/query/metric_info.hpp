#pragma once
/// What the results commands know about a metric: a short column label, how to print it, and
/// which way is worse. Besides stored metrics, "median_ns" and "bandwidth_gbps" name the timing.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runner/common/metrics.hpp"
#include "runner/store/results.hpp"

namespace bb::query {

/// How regress judges a metric (common/metrics.hpp, the one table of names).
using metric_kind = metrics::metric_kind;

struct metric_info {
  std::string name;
  std::string label; ///< "ld wf/req", "median us"
  int decimals = 2;
  double scale = 1; ///< printed value = stored value * scale (median_ns shows in us)
  metric_kind kind = metric_kind::other;
  bool higher_is_worse = true; ///< false for bandwidth; requests are neither, see judged()
  bool judged = true;          ///< false for requests: more work is not a regression
};

metric_info describe_metric(std::string_view name);

/// The metrics compare shows by default.
const std::vector<std::string>& default_compare_metrics();
/// The per-request ratios regress gates on by default.
const std::vector<std::string>& default_regress_metrics();

/// `name`'s value in `row`: the mean over launches, or the timing for median_ns and
/// bandwidth_gbps; empty when not measured or when the configuration did not finish.
std::optional<double> value_of(const store::result_row& row, const std::string& name);

/// Each of `names` (what -m asked for) must be a timing name (median_ns, bandwidth_gbps) or one
/// of `stored` (store::stored_metric_names); a usage_error otherwise, with a did-you-mean, so that
/// a typo is not a table of "-" with exit 0. `where` names the database in the message.
void check_metric_names(const std::vector<std::string>& names, const std::vector<std::string>& stored,
                        const std::string& where);

/// "load_wavefronts_per_request,median_ns" -> two names; repeated options are joined. An option
/// of commas alone (`-m ,`) is a usage_error.
std::vector<std::string> split_metrics(const std::vector<std::string>& options);

} // namespace bb::query
