#include "runner/render/history_svg.hpp"

#include <map>

#include <fmt/format.h>

#include "runner/query/metric_info.hpp"
#include "runner/query/side.hpp"
#include "runner/render/svg.hpp"

namespace bb::render {

std::string history_svg(const std::vector<query::history_point>& points, const query::history_query& q) {
  const query::metric_info info = query::describe_metric(q.metric);
  svg::line_chart chart;
  chart.title = query::history_subject(points, q);
  chart.x_label = "run (commit)";
  chart.y_label = info.label;
  std::map<std::string, std::size_t> series; // arch -> index
  for (const auto& p : points) {
    if (!p.value) continue;
    chart.x_tick_labels.push_back(fmt::format("{}", p.run.id));
    auto [it, added] = series.emplace(p.run.arch, chart.series.size());
    if (added) chart.series.push_back({p.run.arch, {}, {}});
    auto& s = chart.series[it->second];
    s.points.emplace_back(static_cast<double>(p.run.id), *p.value * info.scale);
    s.notes.push_back(fmt::format("run {}, commit {}, {}", p.run.id, query::short_commit(p.run), p.run.gpu_name));
  }
  return svg::render(chart, 720, 340) + "\n";
}

} // namespace bb::render
