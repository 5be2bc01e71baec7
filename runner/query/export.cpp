#include "query/export.hpp"

#include <map>
#include <set>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "query/cells.hpp"
#include "store/results.hpp"

namespace bb::query {

namespace {

constexpr std::size_t k_params_column = 13; // params_json among long_columns()

std::string csv_text(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::string csv_cell(const store::cell& c) {
  if (std::holds_alternative<std::int64_t>(c)) return std::to_string(std::get<std::int64_t>(c));
  if (std::holds_alternative<double>(c)) return shortest(std::get<double>(c));
  if (std::holds_alternative<std::string>(c)) return csv_text(std::get<std::string>(c));
  return "";
}

nlohmann::json json_cell(const store::cell& c) {
  if (std::holds_alternative<std::int64_t>(c)) return std::get<std::int64_t>(c);
  if (std::holds_alternative<double>(c)) return std::get<double>(c);
  if (std::holds_alternative<std::string>(c)) return std::get<std::string>(c);
  return nullptr;
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

std::string csv_of_json(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return csv_text(v.get<std::string>());
  return csv_text(v.dump());
}

} // namespace

store::long_table parse_long_table(std::string_view name) {
  if (name == "metrics") return store::long_table::metrics;
  if (name == "samples") return store::long_table::samples;
  if (name == "configurations") return store::long_table::configurations;
  throw usage_error(fmt::format("unknown table '{}'; expected metrics, samples or configurations", name));
}

std::size_t write_export(const store::database& db, const std::vector<std::int64_t>& run_ids, store::long_table table,
                         bool json, std::ostream& out) {
  std::vector<std::int64_t> ids = run_ids;
  if (ids.empty())
    for (const auto& r : store::run_infos(db)) ids.push_back(r.id);
  const auto columns = store::long_columns(table);
  const param_columns params(store::distinct_params(db, ids));
  std::size_t rows = 0;
  if (!json) {
    std::string header;
    for (const auto& c : columns) {
      if (!header.empty()) header += ',';
      header += c;
    }
    for (const auto& p : params.names()) {
      header += ",param_";
      header += csv_text(p);
    }
    out << header << '\n';
  } else {
    out << '[';
  }
  store::scan_long_rows(db, table, ids, [&](const std::vector<store::cell>& cells) {
    const std::string& params_json = std::get<std::string>(cells[k_params_column]);
    if (json) {
      nlohmann::ordered_json record = nlohmann::ordered_json::object();
      for (std::size_t i = 0; i < cells.size(); ++i) record[columns[i]] = json_cell(cells[i]);
      for (const auto& p : params.names()) record["param_" + p] = params.value(params_json, p);
      out << (rows == 0 ? "\n" : ",\n") << record.dump();
    } else {
      std::string line;
      for (std::size_t i = 0; i < cells.size(); ++i) {
        if (i > 0) line += ',';
        line += csv_cell(cells[i]);
      }
      for (const auto& p : params.names()) {
        line += ',';
        line += csv_of_json(params.value(params_json, p));
      }
      out << line << '\n';
    }
    ++rows;
  });
  if (json) out << (rows == 0 ? "]\n" : "\n]\n");
  return rows;
}

} // namespace bb::query
