#include "runner/query/compare.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "runner/common/error.hpp"
#include "runner/query/cells.hpp"
#include "runner/query/metric_info.hpp"

namespace bb::query {

namespace {

// Rows in first-seen order, found again by key.
class row_index {
public:
  compare_table::row& at(const std::string& key, const store::result_row& r, std::size_t metrics, std::size_t sides,
                         compare_table& t, bool with_variant) {
    const auto it = m_index.find(key);
    if (it != m_index.end()) return t.rows[it->second];
    m_index.emplace(key, t.rows.size());
    compare_table::row row{r.experiment, with_variant ? r.variant : "", canonical_params(r.params_json), {}};
    row.values.assign(metrics, std::vector<std::optional<double>>(sides));
    t.rows.push_back(std::move(row));
    return t.rows.back();
  }

private:
  std::map<std::string, std::size_t> m_index;
};

void fill(compare_table::row& row, const store::result_row& r, const std::vector<std::string>& metrics,
          std::size_t side) {
  for (std::size_t m = 0; m < metrics.size(); ++m)
    if (!row.values[m][side]) row.values[m][side] = value_of(r, metrics[m]);
}

std::string letter(std::size_t i) {
  return i < 26 ? std::string(1, static_cast<char>('A' + i)) : fmt::format("S{}", i + 1);
}

} // namespace

compare_table compare_sides(const std::vector<side>& sides, const std::vector<std::string>& metrics) {
  compare_table t;
  t.metrics = metrics;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < sides.size(); ++i) {
    t.labels.push_back(letter(i));
    t.names.push_back(sides[i].label);
    t.descriptions.push_back(letter(i) + ": " + sides[i].description);
    names.push_back(sides[i].label);
  }
  t.title = fmt::format("{}", fmt::join(names, " vs "));
  row_index index;
  for (std::size_t s = 0; s < sides.size(); ++s)
    for (const auto& r : sides[s].rows)
      fill(index.at(configuration_key(r), r, metrics.size(), sides.size(), t, true), r, metrics, s);
  return t;
}

compare_table compare_variants(const side& s, const std::vector<std::string>& metrics, const std::string& reference) {
  std::vector<std::string> variants;
  for (const auto& r : s.rows)
    if (std::find(variants.begin(), variants.end(), r.variant) == variants.end()) variants.push_back(r.variant);
  if (!reference.empty()) {
    const auto it = std::find_if(variants.begin(), variants.end(),
                                 [&](const std::string& v) { return v == reference || short_variant(v) == reference; });
    if (it == variants.end())
      throw usage_error(
          fmt::format("{} has no variant '{}'; it ran {}", s.label, reference, fmt::join(variants, ", ")));
    std::rotate(variants.begin(), it, it + 1);
  }
  compare_table t;
  t.by_variant = true;
  t.metrics = metrics;
  t.title = "variants of " + s.label;
  t.descriptions.push_back(s.description);
  for (const auto& v : variants) {
    t.labels.push_back(short_variant(v));
    t.names.push_back(v);
  }
  row_index index;
  for (const auto& r : s.rows) {
    const std::size_t side = static_cast<std::size_t>(std::find(variants.begin(), variants.end(), r.variant) -
                                                      variants.begin());
    const std::string key = r.experiment + '\x1f' + canonical_params(r.params_json);
    fill(index.at(key, r, metrics.size(), variants.size(), t, false), r, metrics, side);
  }
  return t;
}

std::vector<compare_table> compare_variants_per_experiment(const side& s, const std::vector<std::string>& metrics,
                                                           const std::string& reference) {
  std::vector<std::string> experiments;
  for (const auto& r : s.rows)
    if (std::find(experiments.begin(), experiments.end(), r.experiment) == experiments.end())
      experiments.push_back(r.experiment);
  if (experiments.size() < 2) return {compare_variants(s, metrics, reference)};
  bool reference_found = reference.empty();
  for (const auto& r : s.rows)
    reference_found = reference_found || r.variant == reference || short_variant(r.variant) == reference;
  if (!reference_found)
    throw usage_error(
        fmt::format("{} has no variant '{}' in any of its {} experiments", s.label, reference, experiments.size()));
  std::vector<compare_table> tables;
  for (const auto& experiment : experiments) {
    side one;
    one.label = s.label;
    for (const auto& r : s.rows)
      if (r.experiment == experiment) one.rows.push_back(r);
    for (const auto& run : s.runs)
      if (run.experiment_name == experiment) one.runs.push_back(run);
    one.description = one.runs.size() == 1 ? describe_run(one.runs.front()) : s.description;
    const bool has_reference = std::any_of(one.rows.begin(), one.rows.end(), [&](const store::result_row& r) {
      return r.variant == reference || short_variant(r.variant) == reference;
    });
    auto t = compare_variants(one, metrics, has_reference ? reference : "");
    t.title = fmt::format("variants of {}, experiment {}", s.label, experiment);
    tables.push_back(std::move(t));
  }
  return tables;
}

} // namespace bb::query
