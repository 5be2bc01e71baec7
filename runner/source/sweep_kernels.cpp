#include "runner/source/sweep_kernels.hpp"

#include <algorithm>
#include <chrono>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "runner/source/compile.hpp"
#include "runner/source/emulate.hpp"
#include "runner/source/launch_args.hpp"
#include "runner/source/variants.hpp"

namespace bb::source {

namespace {

// What two failures share when they are the same error: the log below the first line, which names
// the kernel ("file: kernel 'k<2>' does not compile for sm_90:"); a one-line error whole.
std::string log_of(const std::string& message) {
  const auto eol = message.find('\n');
  return eol == std::string::npos ? message : message.substr(eol + 1);
}

std::string named(const kernel_user& u) { return fmt::format("variant '{}' ({})", u.variant, u.params); }

} // namespace

std::size_t failure_group::configurations() const {
  std::size_t n = 0;
  for (const auto* k : kernels) n += k->users.size();
  return n;
}

std::string failure_group::others_text(std::size_t shown) const {
  std::vector<const kernel_user*> others;
  for (const auto* k : kernels)
    for (const auto& u : k->users)
      if (&u != &first()) others.push_back(&u);
  if (others.empty()) return "";
  std::string text = fmt::format("the same error fails {} more configuration{}: ", others.size(),
                                 others.size() == 1 ? "" : "s");
  for (std::size_t i = 0; i < others.size() && i < shown; ++i) text += (i > 0 ? ", " : "") + named(*others[i]);
  if (others.size() > shown) text += fmt::format(" and {} more", others.size() - shown);
  return text;
}

void sweep_kernels::add(const config::experiment& exp, std::size_t index, const std::vector<std::string>& archs,
                        const std::function<bool(std::size_t)>& wanted) {
  if (exp.sources.empty()) return;
  for (const auto& cfg : config::expand(exp)) {
    const config::source_variant* v = exp.find_source(cfg.variant);
    if (v == nullptr || (wanted && !wanted(cfg.index))) continue;
    add_configuration(exp, *v, cfg.params, {index, cfg.index, v->name, v->line, config::describe_params(cfg.params)},
                      archs);
  }
}

void sweep_kernels::add_configuration(const config::experiment& exp, const config::source_variant& v,
                                      const nlohmann::json& params, const kernel_user& user,
                                      const std::vector<std::string>& archs) {
  try { // every configuration's expressions, as the run will compute them
    config::check_source_configuration(exp, v, params);
    for (const auto& a : config::with_types_at(v, params).args) // what the driver would refuse of a tensor map
      if (a.tensor_map) (void)tensor_map_of(a, type_named(a.type), params, exp.name + "/" + v.name, 0);
  } catch (const error& e) {
    m_refused.push_back({user, e.what()});
    return;
  } catch (const unsupported_parameter& e) {
    m_refused.push_back({user, e.what()});
    return;
  }
  for (const auto& arch : archs) {
    compile_request rq = request_of(v, params, arch);
    rq.ptx_only = m_ptx_only;
    const auto [it, added] = m_by_id.emplace(request_id(rq), m_kernels.size());
    if (added) m_kernels.push_back({std::move(rq), {}, {}});
    m_kernels[it->second].users.push_back(user);
  }
}

std::size_t sweep_kernels::configurations() const {
  std::size_t n = 0;
  for (const auto& k : m_kernels) n += k.users.size();
  return n;
}

double sweep_kernels::compile(const parallel_options& options) {
  std::vector<compile_request> requests;
  requests.reserve(m_kernels.size());
  for (const auto& k : m_kernels) requests.push_back(k.request);
  const auto t0 = std::chrono::steady_clock::now();
  // nvcc compiles the whole file whichever instance it is asked for: the kernels that differ only
  // in their name expression go to one nvcc run, the first of them with the others as companions
  // (compile_request::companions), which the second pass below then finds in the cache.
  std::vector<compile_request> leaders;
  std::vector<std::size_t> leader_of(m_kernels.size(), m_kernels.size()); ///< index into leaders, or none
  std::map<std::string, std::size_t> groups;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (requests[i].compiler != compiler_choice::nvcc || options.cache_dir.empty()) continue;
    // Those in the cache need no run; the first missing one leads its group's. One that cannot be
    // looked up (its file unreadable) is left to the pass below, which reports it.
    try {
      if (find_cached(requests[i], options.cache_dir)) continue;
    } catch (const std::exception&) {
      continue;
    }
    compile_request shape = requests[i];
    shape.kernel.clear();
    const auto [it, added] = groups.emplace(request_id(shape), leaders.size());
    if (added)
      leaders.push_back(requests[i]);
    else
      leaders[it->second].companions.push_back(requests[i].kernel);
    leader_of[i] = it->second;
  }
  std::vector<compile_outcome> first;
  const bool together = std::any_of(leaders.begin(), leaders.end(),
                                    [](const auto& l) { return !l.companions.empty(); });
  if (together) first = compile_parallel(leaders, options);
  m_nvcc_runs = together ? leaders.size() : 0;
  parallel_options rest = options;
  rest.progress = options.progress && !together;
  auto outcomes = compile_parallel(requests, rest);
  for (std::size_t i = 0; i < m_kernels.size(); ++i) {
    compile_outcome& o = outcomes[i];
    if (together && leader_of[i] < first.size()) {
      const compile_outcome& l = first[leader_of[i]];
      if (l.attempted && l.ok && !l.cache_hit && o.ok && o.cache_hit) {
        o.cache_hit = false; // compiled now, in its group's nvcc run (whose time the first one carries)
        if (requests[i].kernel == leaders[leader_of[i]].kernel) {
          o.ms = l.ms;
          o.compile_ms = l.compile_ms;
        }
      }
    }
    m_kernels[i].outcome = std::move(o);
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::vector<failure_group> sweep_kernels::failures() const {
  std::vector<failure_group> groups;
  std::map<std::string, std::size_t> by_log;
  for (const auto& k : m_kernels) {
    if (!k.outcome.attempted || k.outcome.ok) continue;
    const auto [it, added] = by_log.emplace(log_of(k.outcome.error), groups.size());
    if (added) groups.push_back({k.outcome.error, {}});
    groups[it->second].kernels.push_back(&k);
  }
  return groups;
}

std::vector<experiment_kernels> sweep_kernels::per_experiment(std::size_t experiments) const {
  std::vector<experiment_kernels> out(experiments);
  for (const auto& k : m_kernels) {
    std::set<std::size_t> in;
    for (const auto& u : k.users) in.insert(u.experiment);
    for (const std::size_t e : in) {
      if (e >= out.size()) continue;
      auto& s = out[e];
      ++s.kernels;
      if (!k.outcome.attempted) continue;
      if (!k.outcome.ok) {
        ++s.failed;
      } else if (k.outcome.cache_hit) {
        ++s.cache_hits;
        s.cache_hit_ms += k.outcome.ms;
      } else {
        ++s.compiled;
        s.compile_ms += k.outcome.compile_ms;
      }
    }
  }
  return out;
}

std::vector<diagnostic> sweep_kernels::diagnostics(const std::vector<config::experiment>& experiments) const {
  std::vector<diagnostic> out;
  for (const auto& r : m_refused)
    out.push_back(
        {experiments.at(r.user.experiment).path, r.user.line, 0, "variants." + r.user.variant, r.message, ""});
  for (const auto& g : failures()) {
    const kernel_user& first = g.first();
    const std::string others = g.others_text();
    out.push_back({experiments.at(first.experiment).path, first.line, 0, "variants." + first.variant,
                   named(first) + ": " + g.message + (others.empty() ? "" : "\n(" + others + ")"), ""});
  }
  return out;
}

std::vector<diagnostic> sweep_kernels::argument_diagnostics(const std::vector<config::experiment>& experiments,
                                                            const std::string& cache_dir) const {
  std::vector<diagnostic> out;
  // (experiment, variant, kernel): one list of args each, with its types at the first user's
  // configuration (an argument's type may name an axis, as the kernel's template arguments may).
  std::set<std::pair<std::size_t, std::string>> checked;
  std::map<std::size_t, std::vector<config::configuration>> expanded;
  std::set<std::pair<std::size_t, std::string>> reported; // (experiment, variant): its first mismatch only
  for (const auto& k : m_kernels) {
    if (!k.outcome.ok) continue; // diagnostics() reports the failure
    compiled_kernel c;
    try {
      c = source::compile(k.request, cache_dir); // a cache hit: compile() just made it
    } catch (const error&) {
      continue;
    }
    const auto sizes = ptx_parameter_sizes(c);
    if (!sizes) continue;
    const auto types = ptx_parameter_types(c);
    for (const auto& u : k.users) {
      const config::experiment& e = experiments.at(u.experiment);
      const config::source_variant* v = e.find_source(u.variant);
      if (v == nullptr || reported.count({u.experiment, u.variant}) != 0 ||
          !checked.insert({u.experiment, u.variant + "\n" + request_id(k.request)}).second)
        continue;
      auto found = expanded.find(u.experiment);
      if (found == expanded.end()) found = expanded.emplace(u.experiment, config::expand(e)).first;
      const auto& configurations = found->second;
      if (u.configuration >= configurations.size()) continue;
      const config::source_variant at = config::with_types_at(*v, configurations[u.configuration].params);
      try {
        check_parameter_sizes(e.name + "/" + v->name, at, c.lowered_name, *sizes);
        if (types) check_parameter_types(e.name + "/" + v->name, at, c.lowered_name, *types);
      } catch (const error& err) {
        out.push_back({e.path, u.line, 0, "variants." + u.variant + ".args", err.what(), ""});
        reported.insert({u.experiment, u.variant});
      }
    }
  }
  return out;
}

} // namespace bb::source
