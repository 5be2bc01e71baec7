#include "runner/query/export.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runner/common/error.hpp"
#include "runner/query/cells.hpp"
#include "runner/store/results.hpp"

namespace bb::query {

namespace {

constexpr std::size_t k_params_column = 13; // params_json among long_columns()

cell cell_of(const store::cell& c) {
  if (std::holds_alternative<std::int64_t>(c)) return count(std::get<std::int64_t>(c));
  if (std::holds_alternative<double>(c)) return {shortest(std::get<double>(c)), std::get<double>(c)};
  if (std::holds_alternative<std::string>(c)) return std::get<std::string>(c);
  return {"-", nullptr};
}

cell cell_of(const nlohmann::json& v) {
  if (v.is_null()) return {"-", nullptr};
  return {v.is_string() ? v.get<std::string>() : v.dump(), v};
}

// Each distinct params_json parsed once: parameter name -> value.
class param_columns {
public:
  param_columns(const std::vector<std::string>& texts) {
    for (const auto& t : texts) {
      const auto j = nlohmann::json::parse(t, nullptr, false);
      if (!j.is_object()) continue;
      for (const auto& [key, value] : j.items()) m_names.insert(key);
      m_parsed.emplace(t, j);
    }
  }
  [[nodiscard]] const std::set<std::string>& names() const { return m_names; }
  [[nodiscard]] nlohmann::json value(const std::string& params_json, const std::string& name) const {
    const auto it = m_parsed.find(params_json);
    if (it == m_parsed.end() || !it->second.contains(name)) return nullptr;
    return it->second.at(name);
  }

private:
  std::set<std::string> m_names;
  std::map<std::string, nlohmann::json> m_parsed;
};

} // namespace

store::long_table parse_long_table(std::string_view name) {
  if (name == "metrics") return store::long_table::metrics;
  if (name == "samples") return store::long_table::samples;
  if (name == "configurations") return store::long_table::configurations;
  if (name == "lines") return store::long_table::lines;
  throw usage_error(fmt::format("unknown table '{}'; expected metrics, samples, configurations or lines", name));
}

std::size_t write_export(const store::database& db, const std::vector<std::int64_t>& run_ids, store::long_table table,
                         output_format format, std::ostream& out) {
  std::vector<std::int64_t> ids = run_ids;
  if (ids.empty())
    for (const auto& r : store::run_infos(db)) ids.push_back(r.id);
  const param_columns params(store::distinct_params(db, ids));
  std::vector<column> columns;
  for (const auto& name : store::long_columns(table)) columns.push_back({name});
  for (const auto& p : params.names()) columns.push_back({"param_" + p});
  // csv and json stream, so that a large database never has to fit in memory; a table for
  // reading is sized from every row.
  std::optional<row_stream> stream;
  std::optional<text_table> held;
  if (for_programs(format))
    stream.emplace(out, format, columns);
  else
    held.emplace(columns);
  std::vector<cell> row;
  store::scan_long_rows(db, table, ids, [&](const std::vector<store::cell>& cells) {
    const std::string& params_json = std::get<std::string>(cells[k_params_column]);
    row.clear();
    for (const auto& c : cells) row.push_back(cell_of(c));
    for (const auto& p : params.names()) row.push_back(cell_of(params.value(params_json, p)));
    if (stream)
      stream->add_row(row);
    else
      held->add_row(row);
  });
  if (stream) return stream->finish();
  held->write(out, format);
  return held->rows();
}

} // namespace bb::query
