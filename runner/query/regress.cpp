#include "query/regress.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "query/metric_info.hpp"
#include "query/stats.hpp"

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

class judge {
public:
  judge(const side& baseline, const noise_table& history, const regress_options& o, regress_result& out)
      : m_baseline(baseline), m_history(history), m_options(o), m_out(out) {}

  void compare(const store::result_row& b, const store::result_row& c) {
    if (b.status != c.status && (b.status == "ok" || c.status == "ok")) {
      status_change(b, c);
      return;
    }
    if (c.status != "ok") return;
    for (const auto& metric : m_out.metrics) counter(b, c, metric);
    time(b, c);
  }

private:
  double noise(const store::result_row& b, const store::result_row& c, const std::string& metric) const {
    double n = m_options.min_change;
    for (const auto* row : {&b, &c}) {
      const auto& s = row->metrics.at(metric);
      n = std::max(n, relative_spread(s.min, s.max, s.mean));
    }
    for (const auto* table : {&m_history, &m_baseline.stored_noise})
      for (const auto* row : {&b, &c})
        if (const auto it = table->find(noise_key(*row, metric)); it != table->end()) n = std::max(n, it->second);
    return n;
  }

  void counter(const store::result_row& b, const store::result_row& c, const std::string& metric) {
    if (b.metrics.count(metric) == 0 || c.metrics.count(metric) == 0) return;
    const metric_info info = describe_metric(metric);
    finding f = make_finding(b, c, metric);
    f.baseline = b.metrics.at(metric).mean;
    f.candidate = c.metrics.at(metric).mean;
    f.change = relative_change(*f.baseline, *f.candidate);
    // Across architectures nothing was learned about noise: the floor alone separates "same".
    f.allowance = f.cross_arch ? m_options.min_change : noise(b, c, metric);
    if (f.change && std::abs(*f.change) <= f.allowance) return;
    const bool up = !f.change || *f.change > 0;
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
    f.baseline_status = b.status;
    f.candidate_status = c.status;
    // A configuration that no longer runs (skipped) is reported, one that breaks is a regression.
    if (b.status == "ok" && (c.status == "skipped" || c.status == "not_modelled"))
      f.result = outcome::changed;
    else
      f.result = b.status == "ok" ? outcome::regression : outcome::improvement;
    f.gated = f.result == outcome::regression && !f.cross_arch;
    m_out.findings.push_back(std::move(f));
  }

  const side& m_baseline;
  const noise_table& m_history;
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

regress_result regress(const side& baseline, const side& candidate, const noise_table& history,
                       const regress_options& options) {
  regress_result out;
  out.options = options;
  out.metrics = options.metrics.empty() ? default_regress_metrics() : options.metrics;
  out.baseline_label = baseline.label;
  out.baseline_description = baseline.description;
  out.candidate_label = candidate.label;
  out.candidate_description = candidate.description;

  std::map<std::string, std::vector<const store::result_row*>> by_key; // baseline rows
  for (const auto& r : baseline.rows) by_key[configuration_key(r)].push_back(&r);
  std::set<std::string> matched;
  judge j(baseline, history, out.options, out);
  for (const auto& c : candidate.rows) {
    const std::string key = configuration_key(c);
    const auto it = by_key.find(key);
    if (it == by_key.end()) {
      out.added.push_back(unmatched_of(c));
      continue;
    }
    matched.insert(key);
    const auto same =
        std::find_if(it->second.begin(), it->second.end(), [&](const auto* b) { return b->arch == c.arch; });
    const store::result_row& b = same != it->second.end() ? **same : *it->second.front();
    ++(b.arch == c.arch ? out.compared : out.compared_across);
    j.compare(b, c);
  }
  for (const auto& r : baseline.rows)
    if (matched.count(configuration_key(r)) == 0) out.missing.push_back(unmatched_of(r));
  return out;
}

} // namespace bb::query
