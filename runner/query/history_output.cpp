// write_history: the table, its terminal bars, and JSON (render/history_svg.cpp draws the chart).
#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runner/query/cells.hpp"
#include "runner/query/history.hpp"
#include "runner/query/metric_info.hpp"
#include "runner/query/regress_output.hpp"
#include "runner/query/side.hpp"
#include "runner/query/table.hpp"

namespace bb::query {

namespace {

// The change from the previous point on the same architecture.
std::vector<std::optional<double>> changes(const std::vector<history_point>& points) {
  std::map<std::string, double> last;
  std::vector<std::optional<double>> out;
  for (const auto& p : points) {
    std::optional<double> c;
    if (p.value) {
      if (const auto it = last.find(p.run.arch); it != last.end() && it->second != 0)
        c = (*p.value - it->second) / std::abs(it->second);
      last[p.run.arch] = *p.value;
    }
    out.push_back(c);
  }
  return out;
}

// One bar per run, in eighths of a character, scaled to the largest value.
void write_bars(const std::vector<history_point>& points, double scale, std::ostream& out) {
  static const char* k_eighths[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
  constexpr int k_width = 40;
  double top = 0;
  for (const auto& p : points)
    if (p.value) top = std::max(top, std::abs(*p.value));
  out << '\n';
  for (const auto& p : points) {
    std::string bar;
    if (p.value && top > 0) {
      const int eighths = static_cast<int>(std::lround(std::abs(*p.value) / top * k_width * 8));
      for (int i = 0; i < eighths / 8; ++i) bar += "█";
      bar += k_eighths[eighths % 8];
    }
    out << fmt::format("run {:<5} {:<12}  {} {}\n", p.run.id, p.run.git_commit.substr(0, 12), bar,
                       value_cell(p.value, scale));
  }
}

void write_json(const std::vector<history_point>& points, const history_query& q, std::ostream& out) {
  using nlohmann::json;
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  json rows = json::array();
  for (const auto& p : points)
    rows.push_back({{"run_id", p.run.id},
                    {"started_at", p.run.started_at},
                    {"git_commit", p.run.git_commit},
                    {"git_dirty", p.run.git_dirty},
                    {"gpu_name", p.run.gpu_name},
                    {"arch", p.run.arch},
                    {"experiment", p.run.experiment_name},
                    {"value", opt(p.value)},
                    {"min", opt(p.min)},
                    {"max", opt(p.max)},
                    {"launches", p.launches}});
  out << json{{"metric", q.metric},
              {"variant", q.variant},
              {"params", json::parse(points.front().params_json)},
              {"points", rows}}
             .dump(2)
      << '\n';
}

} // namespace

std::string history_subject(const std::vector<history_point>& points, const history_query& q) {
  const auto& p = points.front();
  return fmt::format("{} of {} {} ({})", describe_metric(q.metric).label, p.run.experiment_name,
                     fmt::format("{} {}", short_variant(q.variant), compact_params(p.params_json)), q.metric);
}

void write_history(const std::vector<history_point>& points, const history_query& q, std::ostream& out,
                   const std::string& format) {
  if (format == "json") {
    write_json(points, q, out);
    return;
  }
  const output_format f = parse_format(format);
  const bool csv = f == output_format::csv;
  const metric_info info = describe_metric(q.metric);
  const double scale = csv ? 1 : info.scale;
  const std::string label = csv ? q.metric : info.label;
  text_table t({{"run", align::right},
                {"started"},
                {"commit"},
                {"gpu"},
                {"arch"},
                {label, align::right},
                {"min", align::right},
                {"max", align::right},
                {csv ? "launches" : "n", align::right},
                {"change", align::right}});
  const auto change = changes(points);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    auto cell = [&](const std::optional<double>& v) { return csv ? (v ? shortest(*v) : "") : value_cell(v, scale); };
    t.add_row({std::to_string(p.run.id), p.run.started_at, csv ? p.run.git_commit : short_commit(p.run), p.run.gpu_name,
               p.run.arch, cell(p.value), cell(p.min), cell(p.max), std::to_string(p.launches),
               change[i] ? (csv ? shortest(*change[i]) : change_cell(change[i])) : (csv ? "" : "-")});
  }
  if (!csv)
    out << (f == output_format::markdown ? "## history: " : "history: ") << history_subject(points, q) << "\n\n";
  t.write(out, f);
  if (f == output_format::table) write_bars(points, scale, out);
}

} // namespace bb::query
