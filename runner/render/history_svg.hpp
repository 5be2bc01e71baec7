#pragma once
/// `bankbench history --svg`: the points of query::metric_history as a standalone SVG chart.
#include <string>
#include <vector>

#include "runner/query/history.hpp"

namespace bb::render {

/// A standalone SVG line chart of the points, one line per architecture.
std::string history_svg(const std::vector<query::history_point>& points, const query::history_query& q);

} // namespace bb::render
