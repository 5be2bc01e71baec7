#include "runner/model/predict.hpp"

#include <algorithm>

#include "runner/common/metrics.hpp"
#include "runner/model/evaluate.hpp"

namespace bb::model {

const char* kind_name(access_kind k) {
  switch (k) {
  case access_kind::load: return "lds";
  case access_kind::store: return "sts";
  case access_kind::ldsm: return "ldsm";
  case access_kind::stsm: return "stsm";
  case access_kind::atom: return "atom";
  case access_kind::ldgsts: return "ldgsts";
  case access_kind::gmma: return "gmma";
  }
  return "lds";
}

void add_cost(prediction& p, access_kind k, std::uint64_t count, const access_cost& c, bool continues) {
  if (c.active_lanes == 0) return;
  auto add = [&](side_totals& s) {
    if (!continues) s.requests += count;
    s.wavefronts += count * static_cast<std::uint64_t>(c.wavefronts);
    s.ideal_wavefronts += count * static_cast<std::uint64_t>(c.ideal_wavefronts);
    s.conflicts += count * static_cast<std::uint64_t>(c.conflicts);
  };
  add(p.kinds[kind_name(k)]);
  if (k == access_kind::load || k == access_kind::ldsm) add(p.load);
  if (k == access_kind::store || k == access_kind::stsm) add(p.store);
}

void scale(prediction& p, std::uint64_t factor) {
  auto times = [&](side_totals& s) {
    s.requests *= factor;
    s.wavefronts *= factor;
    s.ideal_wavefronts *= factor;
    s.conflicts *= factor;
  };
  times(p.load);
  times(p.store);
  for (auto& [kind, s] : p.kinds) times(s);
}

prediction predict(const access_plan& plan) {
  prediction p;
  for (const auto& e : plan.entries) add_cost(p, e.access.kind, e.count, evaluate(e.access), e.continues);
  return p;
}

std::map<std::string, double> predicted_counters(const prediction& p, const std::vector<std::string>& wanted) {
  namespace m = metrics;
  const std::pair<const char*, std::uint64_t> all[] = {
      {m::k_ld_requests, p.load.requests},     {m::k_st_requests, p.store.requests},
      {m::k_ld_wavefronts, p.load.wavefronts}, {m::k_st_wavefronts, p.store.wavefronts},
      {m::k_ld_conflicts, p.load.conflicts},   {m::k_st_conflicts, p.store.conflicts},
  };
  auto kind = [&](const char* k) {
    const auto it = p.kinds.find(k);
    return it == p.kinds.end() ? side_totals{} : it->second;
  };
  // The SASS request counters count LDS/STS alone; op_ld/op_st include the matrix kinds.
  const side_totals lds = kind("lds"), sts = kind("sts"), ldsm = kind("ldsm"), stsm = kind("stsm"), atom = kind("atom"),
                    ldgsts = kind("ldgsts"), gmma = kind("gmma");
  const std::pair<const char*, std::uint64_t> per_kind[] = {
      {m::k_ld_requests, lds.requests},
      {m::k_st_requests, sts.requests},
      {m::k_ldsm_requests, ldsm.requests},
      {m::k_ldsm_wavefronts, ldsm.wavefronts},
      {m::k_ldsm_conflicts, ldsm.conflicts},
      {m::k_stsm_requests, stsm.requests},
      {m::k_stsm_wavefronts, stsm.wavefronts},
      {m::k_stsm_conflicts, stsm.conflicts},
      {m::k_atom_requests, atom.requests},
      {m::k_atom_wavefronts, atom.wavefronts},
      {m::k_atom_conflicts, atom.conflicts},
      {m::k_ldgsts_requests, ldgsts.requests},
      {m::k_ldgsts_wavefronts, ldgsts.wavefronts},
      {m::k_ldgsts_conflicts, ldgsts.conflicts},
      {m::k_gmma_requests, gmma.requests},
      {m::k_gmma_wavefronts, gmma.wavefronts},
      {m::k_gmma_conflicts, gmma.conflicts},
  };
  std::map<std::string, double> out;
  for (const auto& [name, value] : all)
    if (std::find(wanted.begin(), wanted.end(), name) != wanted.end()) out[name] = static_cast<double>(value);
  for (const auto& [name, value] : per_kind)
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
  for (const auto& [kind, s] : p.kinds) {
    const std::string n = "predicted_" + kind + "_";
    out[n + "requests"] = static_cast<double>(s.requests);
    if (s.requests == 0) continue;
    out[n + "wavefronts_per_request"] = static_cast<double>(s.wavefronts) / static_cast<double>(s.requests);
  }
  return out;
}

} // namespace bb::model
