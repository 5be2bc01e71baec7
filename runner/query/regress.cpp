#include "runner/query/regress.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "runner/query/metric_info.hpp"
#include "runner/query/stats.hpp"

namespace bb::query {

namespace {

std::optional<double> relative_change(double baseline, double candidate) {
  if (baseline == 0) {
    if (candidate == 0) return 0.0;
    return std::nullopt; // from nothing to something: beyond any allowance
  }
  return (candidate - baseline) / std::abs(baseline);
}

finding make_finding(const store::result_row& b, const store::result_row& c, const std::string& metric) {
  finding f;
  f.experiment = c.experiment;
  f.variant = c.variant;
  f.params_json = canonical_params(c.params_json);
  f.metric = metric;
  f.baseline_arch = b.arch;
  f.candidate_arch = c.arch;
  f.cross_arch = b.arch != c.arch;
  return f;
}

/// The kind prefix of a count metric ("load" of "load_wavefronts"), or "" for another metric.
std::string kind_of_count(const std::string& metric) {
  for (const char* suffix : {"_excess_wavefronts", "_wavefronts", "_conflicts"}) {
    const std::string sfx = suffix;
    if (metric.size() > sfx.size() && metric.ends_with(sfx) && !metric.starts_with("predicted_"))
      return metric.substr(0, metric.size() - sfx.size());
  }
  return "";
}

} // namespace

double absolute_effect(const std::string& metric, const store::result_row& b, const regress_options& options);

namespace {

class judge {
public:
  judge(const side& baseline, const noise_table& history, const repeat_table& repeats, const regress_options& o,
        regress_result& out)
      : m_baseline(baseline), m_history(history), m_repeats(repeats), m_options(o), m_out(out) {}

  /// ok, or ran without a check to compare its output with: either way its counters and times stand.
  static bool ran(config_status s) { return s == config_status::ok || s == config_status::unverified; }

  void compare(const store::result_row& b, const store::result_row& c) {
    if (b.status != c.status && (ran(b.status) || ran(c.status))) status_change(b, c);
    if (!ran(b.status) || !ran(c.status)) return;
    for (const auto& metric : m_out.metrics) counter(b, c, metric);
    time(b, c);
  }

private:
  /// The largest relative spread known for the pair: its launches, and what was learned before.
  double relative_noise(const store::result_row& b, const store::result_row& c, const std::string& metric) const {
    double n = 0;
    for (const auto* row : {&b, &c}) {
      const auto& s = row->metrics.at(metric);
      n = std::max(n, relative_spread(s.min, s.max, s.mean));
    }
    for (const auto* table : {&m_history, &m_baseline.stored_noise})
      for (const auto* row : {&b, &c})
        if (const auto it = table->find(noise_key(*row, metric)); it != table->end()) n = std::max(n, it->second);
    return n;
  }

  /// The minimum effect; noise learned from enough repeats of the same code may tighten its
  /// relative part, never below the absolute part (unchanged code moved wavefronts per request by
  /// up to 0.038 on an H200, so nothing under 0.05 is ever trusted).
  double allowance(const store::result_row& b, const store::result_row& c, const std::string& metric,
                   double baseline) const {
    const double effect = minimum_effect(metric, baseline, b, m_options);
    const auto it = m_repeats.find(noise_key(b, metric));
    if (it == m_repeats.end() || it->second < m_options.noise_repeats) return effect;
    const double noise = relative_noise(b, c, metric) * std::abs(baseline);
    const double floor = absolute_effect(metric, b, m_options);
    return std::max(floor, std::min(effect, m_options.noise_factor * noise));
  }

  void counter(const store::result_row& b, const store::result_row& c, const std::string& metric) {
    if (b.metrics.count(metric) == 0 || c.metrics.count(metric) == 0) return;
    ++m_out.judged;
    const metric_info info = describe_metric(metric);
    finding f = make_finding(b, c, metric);
    f.baseline = b.metrics.at(metric).mean;
    f.candidate = c.metrics.at(metric).mean;
    f.change = relative_change(*f.baseline, *f.candidate);
    const double delta = *f.candidate - *f.baseline;
    // Across architectures nothing was learned about noise: the minimum effect alone decides.
    f.allowance = f.cross_arch ? minimum_effect(metric, *f.baseline, b, m_options)
                               : allowance(b, c, metric, *f.baseline);
    if (std::abs(delta) <= f.allowance) return;
    const bool up = delta > 0;
    if (!info.judged)
      f.result = outcome::changed;
    else
      f.result = up == info.higher_is_worse ? outcome::regression : outcome::improvement;
    f.gated = f.result == outcome::regression && !f.cross_arch;
    m_out.findings.push_back(std::move(f));
  }

  void time(const store::result_row& b, const store::result_row& c) {
    if (b.samples_ns.size() < 2 || c.samples_ns.size() < 2) return;
    ++m_out.times_compared;
    finding f = make_finding(b, c, "median_ns");
    f.baseline = b.sample_median();
    f.candidate = c.sample_median();
    f.change = relative_change(*f.baseline, *f.candidate);
    f.allowance = m_options.min_time_effect;
    f.p = mann_whitney_u(b.samples_ns, c.samples_ns).p;
    if (!f.change || std::abs(*f.change) < f.allowance || *f.p >= m_options.alpha) return;
    f.result = *f.change > 0 ? outcome::regression : outcome::improvement;
    f.gated = f.result == outcome::regression && m_options.gate_time && !f.cross_arch;
    m_out.findings.push_back(std::move(f));
  }

  void status_change(const store::result_row& b, const store::result_row& c) {
    finding f = make_finding(b, c, "status");
    f.baseline_status = name_of(b.status);
    f.candidate_status = name_of(c.status);
    // A configuration that no longer runs (skipped, not modelled) is reported, one that breaks is a
    // regression; ok against unverified (a check added or removed) is reported, its counters judged.
    if (ran(b.status) &&
        (ran(c.status) || c.status == config_status::skipped || c.status == config_status::not_modelled))
      f.result = outcome::changed;
    else
      f.result = ran(b.status) ? outcome::regression : outcome::improvement;
    f.gated = f.result == outcome::regression && !f.cross_arch;
    m_out.findings.push_back(std::move(f));
  }

  const side& m_baseline;
  const noise_table& m_history;
  const repeat_table& m_repeats;
  const regress_options& m_options;
  regress_result& m_out;
};

unmatched unmatched_of(const store::result_row& r) {
  return {r.experiment, r.variant, canonical_params(r.params_json), r.arch};
}

} // namespace

std::size_t regress_result::gated() const {
  return static_cast<std::size_t>(
      std::count_if(findings.begin(), findings.end(), [](const finding& f) { return f.gated; }));
}

double absolute_effect(const std::string& metric, const store::result_row& b, const regress_options& options) {
  if (metric.ends_with("_per_request")) return options.min_effect;
  if (const std::string kind = kind_of_count(metric); !kind.empty()) {
    // A count's absolute minimum is the per-request one times the requests of its kind.
    if (const auto it = b.metrics.find(kind + "_requests"); it != b.metrics.end())
      return options.min_effect * it->second.mean;
  }
  return 0;
}

double minimum_effect(const std::string& metric, double baseline, const store::result_row& b,
                      const regress_options& options) {
  return std::max(absolute_effect(metric, b, options), options.min_change * std::abs(baseline));
}

std::vector<std::string> regress_metrics_of(const std::vector<store::result_row>& rows) {
  std::set<std::string> names;
  for (const auto& r : rows)
    for (const auto& [name, stats] : r.metrics)
      if (!name.starts_with("predicted_") && name.find("_excess_") == std::string::npos &&
          (name.ends_with("_wavefronts_per_request") || name.ends_with("_requests")))
        names.insert(name);
  // Loads and stores first, as every table shows them; then other kinds by name.
  std::vector<std::string> out;
  for (const char* known :
       {"load_wavefronts_per_request", "load_requests", "store_wavefronts_per_request", "store_requests"})
    if (names.erase(known) > 0) out.push_back(known);
  out.insert(out.end(), names.begin(), names.end());
  return out;
}

regress_result regress(const side& baseline, const side& candidate, const noise_table& history,
                       const regress_options& options, const repeat_table& repeats) {
  regress_result out;
  out.options = options;
  out.metrics = options.metrics.empty() ? regress_metrics_of(candidate.rows) : options.metrics;
  out.baseline_label = baseline.label;
  out.baseline_description = baseline.description;
  out.candidate_label = candidate.label;
  out.candidate_description = candidate.description;

  std::map<std::string, std::vector<const store::result_row*>> by_key; // baseline rows
  for (const auto& r : baseline.rows) by_key[configuration_key(r)].push_back(&r);
  std::set<std::string> matched;
  judge j(baseline, history, repeats, out.options, out);
  for (const auto& c : candidate.rows) {
    const std::string key = configuration_key(c);
    const auto it = by_key.find(key);
    if (it == by_key.end()) {
      out.added.push_back(unmatched_of(c));
      continue;
    }
    matched.insert(key);
    const auto same = std::find_if(it->second.begin(), it->second.end(),
                                   [&](const auto* b) { return b->arch == c.arch; });
    const store::result_row& b = same != it->second.end() ? **same : *it->second.front();
    ++(b.arch == c.arch ? out.compared : out.compared_across);
    j.compare(b, c);
  }
  for (const auto& r : baseline.rows)
    if (matched.count(configuration_key(r)) == 0) out.missing.push_back(unmatched_of(r));
  return out;
}

} // namespace bb::query
