#include "model/predict.hpp"

#include <algorithm>

#include "common/metrics.hpp"
#include "model/evaluate.hpp"

namespace bb::model {

prediction predict(const access_plan& plan) {
  prediction p;
  for (const auto& e : plan.entries) {
    const access_cost c = evaluate(e.access);
    if (c.active_lanes == 0) continue;
    side_totals& s = e.access.kind == access_kind::load ? p.load : p.store;
    s.requests += e.count;
    s.wavefronts += e.count * static_cast<std::uint64_t>(c.wavefronts);
    s.ideal_wavefronts += e.count * static_cast<std::uint64_t>(c.ideal_wavefronts);
    s.conflicts += e.count * static_cast<std::uint64_t>(c.conflicts);
  }
  return p;
}

std::map<std::string, double> predicted_counters(const prediction& p, const std::vector<std::string>& wanted) {
  namespace m = metrics;
  const std::pair<const char*, std::uint64_t> all[] = {
      {m::k_ld_requests, p.load.requests},     {m::k_st_requests, p.store.requests},
      {m::k_ld_wavefronts, p.load.wavefronts}, {m::k_st_wavefronts, p.store.wavefronts},
      {m::k_ld_conflicts, p.load.conflicts},   {m::k_st_conflicts, p.store.conflicts},
  };
  std::map<std::string, double> out;
  for (const auto& [name, value] : all)
    if (std::find(wanted.begin(), wanted.end(), name) != wanted.end()) out[name] = static_cast<double>(value);
  return out;
}

std::map<std::string, double> predicted_metric_rows(const prediction& p) {
  std::map<std::string, double> out;
  for (const auto& [prefix, s] : {std::pair<const char*, const side_totals&>{"predicted_load_", p.load},
                                  std::pair<const char*, const side_totals&>{"predicted_store_", p.store}}) {
    const std::string n = prefix;
    out[n + "requests"] = static_cast<double>(s.requests);
    out[n + "wavefronts"] = static_cast<double>(s.wavefronts);
    if (s.requests == 0) continue;
    const auto req = static_cast<double>(s.requests);
    out[n + "wavefronts_per_request"] = static_cast<double>(s.wavefronts) / req;
    out[n + "conflicts_per_request"] = static_cast<double>(s.conflicts) / req;
  }
  return out;
}

} // namespace bb::model
