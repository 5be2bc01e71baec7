// write_compare: the compare table as text, markdown, csv or json.
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "runner/query/cells.hpp"
#include "runner/query/compare.hpp"
#include "runner/query/metric_info.hpp"
#include "runner/query/regress_output.hpp"
#include "runner/query/table.hpp"

namespace bb::query {

namespace {

std::optional<double> ratio(const std::optional<double>& value, const std::optional<double>& reference) {
  if (!value || !reference || *reference == 0) return std::nullopt;
  return *value / *reference;
}

std::string ratio_cell(const std::optional<double>& r) { return r ? fmt::format("{:.3g}x", *r) : "-"; }

bool many_experiments(const compare_table& t) {
  std::set<std::string> experiments;
  for (const auto& r : t.rows) experiments.insert(r.experiment);
  return experiments.size() > 1;
}

text_table make_table(const compare_table& t, output_format format) {
  const bool csv = format == output_format::csv;
  const bool experiment = csv || many_experiments(t);
  std::vector<column> columns;
  if (experiment) columns.push_back({"experiment"});
  if (!t.by_variant) columns.push_back({"variant"});
  columns.push_back({csv ? "params_json" : "params"});
  const auto& labels = csv ? t.names : t.labels;
  for (const auto& m : t.metrics) {
    const std::string name = csv ? m : describe_metric(m).label;
    for (const auto& l : labels)
      columns.push_back({csv ? fmt::format("{}[{}]", name, l) : fmt::format("{} {}", name, l), align::right});
    for (std::size_t s = 1; s < labels.size(); ++s)
      columns.push_back(
          {csv ? fmt::format("{}[{}/{}]", name, labels[s], labels[0]) : labels[s] + "/" + labels[0], align::right});
  }
  text_table table(std::move(columns));
  for (const auto& row : t.rows) {
    std::vector<cell> cells;
    if (experiment) cells.push_back(row.experiment);
    if (!t.by_variant) cells.push_back(csv ? row.variant : short_variant(row.variant));
    const std::string params = compact_params(row.params_json);
    cells.push_back(csv ? row.params_json : params.empty() ? "-" : params);
    for (std::size_t m = 0; m < t.metrics.size(); ++m) {
      const auto& v = row.values[m];
      const double scale = describe_metric(t.metrics[m]).scale;
      for (const auto& x : v) cells.push_back(csv ? (x ? shortest(*x) : "") : value_cell(x, scale));
      for (std::size_t s = 1; s < v.size(); ++s) {
        const auto r = ratio(v[s], v[0]);
        cells.push_back(csv ? (r ? shortest(*r) : "") : ratio_cell(r));
      }
    }
    table.add_row(std::move(cells));
  }
  return table;
}

nlohmann::json optional_json(const std::optional<double>& v) {
  if (!v) return nullptr;
  return *v;
}

nlohmann::json to_json(const compare_table& t) {
  using nlohmann::json;
  json sides = json::array();
  for (std::size_t s = 0; s < t.names.size(); ++s)
    sides.push_back({{"label", t.labels[s]},
                     {"name", t.names[s]},
                     {"description", s < t.descriptions.size() ? t.descriptions[s] : ""}});
  json rows = json::array();
  for (const auto& row : t.rows) {
    json values = json::object(), ratios = json::object();
    for (std::size_t m = 0; m < t.metrics.size(); ++m) {
      json v = json::array(), r = json::array();
      for (std::size_t s = 0; s < row.values[m].size(); ++s) {
        v.push_back(optional_json(row.values[m][s]));
        r.push_back(s == 0 ? json(nullptr) : optional_json(ratio(row.values[m][s], row.values[m][0])));
      }
      values[t.metrics[m]] = v;
      ratios[t.metrics[m]] = r;
    }
    json j = {{"experiment", row.experiment},
              {"params", json::parse(row.params_json, nullptr, false)},
              {"values", values},
              {"ratios", ratios}};
    if (!t.by_variant) j["variant"] = row.variant;
    rows.push_back(std::move(j));
  }
  return json{
      {"title", t.title}, {"by_variant", t.by_variant}, {"metrics", t.metrics}, {"sides", sides}, {"rows", rows}};
}

} // namespace

void write_compare(const compare_table& t, std::ostream& out, const std::string& format) {
  if (format == "json") {
    out << to_json(t).dump(2) << '\n';
    return;
  }
  const output_format f = parse_format(format);
  if (f != output_format::csv) {
    const bool md = f == output_format::markdown;
    out << (md ? "## " : "") << "compare: " << t.title << "\n\n";
    for (const auto& d : t.descriptions) out << (md ? "- " : "") << d << '\n';
    out << '\n';
  }
  if (t.rows.empty() && f != output_format::csv) {
    out << "nothing to compare: no configurations\n";
    return;
  }
  make_table(t, f).write(out, f);
}

void write_compares(const std::vector<compare_table>& tables, std::ostream& out, const std::string& format) {
  if (tables.size() == 1) {
    write_compare(tables.front(), out, format);
    return;
  }
  if (format == "json") {
    nlohmann::json all = nlohmann::json::array();
    for (const auto& t : tables) all.push_back(to_json(t));
    out << all.dump(2) << '\n';
    return;
  }
  for (std::size_t i = 0; i < tables.size(); ++i) {
    if (i > 0) out << '\n';
    write_compare(tables[i], out, format);
  }
}

} // namespace bb::query
