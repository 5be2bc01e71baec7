#pragma once
/// The report's charts, built from rows read from the database. Private to the report's files.
/// Each returns a complete <figure>, or nothing when there is nothing to draw.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runner/store/results.hpp"

namespace bb::render::report_charts {

/// `metric` drawn the way the sweep reads best, with only the parameters that vary on the axes
/// (those that do not are named in the caption): over one numeric parameter, a line per variant
/// (log scale where the sizes span powers of two); over two parameters, a heat map per variant;
/// otherwise bars by parameters and variant. Configurations without a value are marked with why
/// (failed, not modelled), and groups with a failed expectation shaded.
std::vector<std::string> by_parameters(const std::vector<store::result_row>& rows, const std::string& metric,
                                       const std::string& context);

/// `metric` (median_ns or bandwidth_gbps) against the size parameter (the numeric parameter
/// with the most distinct values), one line per variant; nothing without such a parameter.
std::optional<std::string> against_size(const std::vector<store::result_row>& rows, const std::string& metric,
                                        const std::string& context);

/// One run per GPU: bars of `metric` by configuration (groups) and GPU (bars).
std::optional<std::string> across_gpus(
    const std::vector<std::pair<store::run_info, std::vector<store::result_row>>>& runs, const std::string& metric);

/// Measured load and store wavefronts per request against the bank model's prediction: the
/// predicted_* values stored with `measured`, else those of a model run's `predicted` rows.
std::optional<std::string> predicted_vs_measured(const std::vector<store::result_row>& measured,
                                                 const std::vector<store::result_row>& predicted);

} // namespace bb::render::report_charts
