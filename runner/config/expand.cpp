#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "runner/config/build.hpp"
#include "runner/config/experiment.hpp"

namespace bb::config {

namespace {

// The sweep walks index tuples: one index per dimension, where a dimension is a lone axis or a
// zip group (its axes share the index). The first dimension varies slowest.
struct sweep_plan {
  std::vector<std::size_t> lengths;      // per dimension
  std::vector<std::size_t> dimension_of; // per axis
};

// An exclude entry as indices: -1 for "any"; never_matches when a value is not on its axis.
struct exclude_rule {
  long variant = -1;
  std::vector<long> value_of_axis;
  bool never_matches = false;
};

sweep_plan plan(const experiment& exp) {
  sweep_plan p;
  p.dimension_of.assign(exp.axes.size(), 0);
  std::vector<std::string> placed; // axes already given a dimension through their zip group
  for (std::size_t a = 0; a < exp.axes.size(); ++a) {
    const auto& name = exp.axes[a].name;
    if (std::find(placed.begin(), placed.end(), name) != placed.end()) continue;
    const auto group = std::find_if(exp.zip.begin(), exp.zip.end(),
                                    [&](const auto& g) { return std::find(g.begin(), g.end(), name) != g.end(); });
    std::size_t length = exp.axes[a].values.size();
    for (std::size_t b = a; b < exp.axes.size(); ++b) {
      const bool same_group = b == a || (group != exp.zip.end() &&
                                         std::find(group->begin(), group->end(), exp.axes[b].name) != group->end());
      if (!same_group) continue;
      p.dimension_of[b] = p.lengths.size();
      placed.push_back(exp.axes[b].name);
      length = std::min(length, exp.axes[b].values.size());
    }
    p.lengths.push_back(length);
  }
  return p;
}

// Exclude rules grouped by the keys they give (their mask): a configuration is excluded when,
// for some mask, its values on those keys are a rule's. One hash look-up per mask, however long
// the exclude list.
struct exclude_index {
  struct group {
    bool variant = false;
    std::vector<std::size_t> axes;        // the axes the rules of this group give
    std::unordered_set<std::string> keys; // each rule's values on them, packed
  };
  std::vector<group> groups;
};

void pack(std::string& key, std::size_t value) { key.append(reinterpret_cast<const char*>(&value), sizeof value); }

std::vector<exclude_rule> rules(const experiment& exp) {
  std::vector<exclude_rule> out;
  // axis -> value (canonical JSON text) -> index: a look-up per entry, not a scan of the axis.
  std::vector<std::unordered_map<std::string, long>> index_of(exp.axes.size());
  for (std::size_t a = 0; a < exp.axes.size(); ++a)
    for (std::size_t i = 0; i < exp.axes[a].values.size(); ++i)
      index_of[a].emplace(detail::canonical_value(exp.axes[a].values[i]), static_cast<long>(i));
  for (const auto& entry : exp.exclude) {
    exclude_rule r;
    r.value_of_axis.assign(exp.axes.size(), -1);
    for (const auto& [key, value] : entry.items()) {
      if (key == "variant") {
        const std::string name = value.is_string() ? value.get<std::string>() : value.dump();
        const auto it = std::find(exp.variants.begin(), exp.variants.end(), name);
        r.variant = static_cast<long>(it - exp.variants.begin());
        r.never_matches |= it == exp.variants.end();
        continue;
      }
      const std::string& axis_name = key; // a named copy: clang 14 cannot capture a binding
      const auto axis = std::find_if(exp.axes.begin(), exp.axes.end(),
                                     [&](const auto& ax) { return ax.name == axis_name; });
      if (axis == exp.axes.end()) {
        r.never_matches = true;
        continue;
      }
      const auto a = static_cast<std::size_t>(axis - exp.axes.begin());
      const auto v = index_of[a].find(detail::canonical_value(value));
      r.value_of_axis[a] = v == index_of[a].end() ? -1 : v->second;
      r.never_matches |= v == index_of[a].end();
    }
    if (!r.never_matches) out.push_back(std::move(r));
  }
  return out;
}

exclude_index index_rules(const std::vector<exclude_rule>& rules) {
  exclude_index x;
  std::map<std::pair<bool, std::vector<std::size_t>>, std::size_t> group_of;
  for (const auto& r : rules) {
    std::pair<bool, std::vector<std::size_t>> mask{r.variant >= 0, {}};
    for (std::size_t a = 0; a < r.value_of_axis.size(); ++a)
      if (r.value_of_axis[a] >= 0) mask.second.push_back(a);
    auto [it, fresh] = group_of.try_emplace(mask, x.groups.size());
    if (fresh) x.groups.push_back({mask.first, mask.second, {}});
    std::string key;
    if (r.variant >= 0) pack(key, static_cast<std::size_t>(r.variant));
    for (const auto a : mask.second) pack(key, static_cast<std::size_t>(r.value_of_axis[a]));
    x.groups[it->second].keys.insert(std::move(key));
  }
  return x;
}

bool excluded(const exclude_index& x, const sweep_plan& p, std::size_t variant, const std::vector<std::size_t>& index) {
  std::string key;
  for (const auto& g : x.groups) {
    key.clear();
    if (g.variant) pack(key, variant);
    for (const auto a : g.axes) pack(key, index[p.dimension_of[a]]);
    if (g.keys.count(key) != 0) return true;
  }
  return false;
}

// Calls visit(variant, index) for every configuration that is not excluded, in sweep order.
template <typename Visit> void walk(const experiment& exp, Visit&& visit) {
  const sweep_plan p = plan(exp);
  const exclude_index r = index_rules(rules(exp));
  if (std::find(p.lengths.begin(), p.lengths.end(), 0) != p.lengths.end()) return;
  for (std::size_t v = 0; v < exp.variants.size(); ++v) {
    std::vector<std::size_t> index(p.lengths.size(), 0);
    for (bool more = true; more;) {
      if (!excluded(r, p, v, index)) visit(v, p, index);
      more = false;
      for (std::size_t d = index.size(); d-- > 0;) { // the last dimension varies fastest
        if (++index[d] < p.lengths[d]) {
          more = true;
          break;
        }
        index[d] = 0;
      }
    }
  }
}

} // namespace

std::vector<configuration> expand(const experiment& exp) {
  std::vector<configuration> out;
  walk(exp, [&](std::size_t v, const sweep_plan& p, const std::vector<std::size_t>& index) {
    configuration c{out.size(), exp.variants[v], exp.defaults};
    if (!c.params.is_object()) c.params = nlohmann::json::object();
    for (std::size_t a = 0; a < exp.axes.size(); ++a)
      c.params[exp.axes[a].name] = exp.axes[a].values[index[p.dimension_of[a]]];
    out.push_back(std::move(c));
  });
  return out;
}

std::string describe_params(const nlohmann::json& params) {
  std::string out;
  for (const auto& [key, value] : params.items()) {
    if (!out.empty()) out += ' ';
    out += key + '=' + (value.is_string() ? value.get<std::string>() : value.dump());
  }
  return out;
}

namespace detail {

namespace {

// a * b, held at the largest value instead of wrapping.
std::uint64_t times(std::uint64_t a, std::uint64_t b) {
  return b != 0 && a > std::numeric_limits<std::uint64_t>::max() / b ? std::numeric_limits<std::uint64_t>::max()
                                                                     : a * b;
}

} // namespace

sweep_size count_configurations(const experiment& exp) {
  constexpr std::uint64_t k_walk_limit = 4'000'000; // about a second of walking, at worst
  const sweep_plan p = plan(exp);
  std::uint64_t total = exp.variants.size();
  for (const std::size_t n : p.lengths) total = times(total, n);
  if (exp.exclude.empty() || total == 0) return {total, true};
  // Whether a configuration is excluded depends only on the dimensions (and the variant) that
  // some rule names: walk those alone, and multiply by the sizes of the others.
  const exclude_index x = index_rules(rules(exp));
  bool by_variant = false;
  std::vector<bool> named(p.lengths.size(), false);
  for (const auto& g : x.groups) {
    by_variant = by_variant || g.variant;
    for (const auto a : g.axes) named[p.dimension_of[a]] = true;
  }
  std::uint64_t walked = by_variant ? exp.variants.size() : 1, others = by_variant ? 1 : exp.variants.size();
  std::vector<std::size_t> dims;
  for (std::size_t d = 0; d < p.lengths.size(); ++d) {
    if (named[d]) dims.push_back(d);
    (named[d] ? walked : others) = times(named[d] ? walked : others, p.lengths[d]);
  }
  if (walked > k_walk_limit) return {total, false};
  std::uint64_t kept = 0;
  std::vector<std::size_t> index(p.lengths.size(), 0); // the dimensions no rule names stay at 0
  for (std::size_t v = 0; v < (by_variant ? exp.variants.size() : 1); ++v) {
    std::fill(index.begin(), index.end(), 0);
    for (bool more = true; more;) {
      kept += excluded(x, p, v, index) ? 0 : 1;
      more = false;
      for (std::size_t k = dims.size(); k-- > 0;) {
        if (++index[dims[k]] < p.lengths[dims[k]]) {
          more = true;
          break;
        }
        index[dims[k]] = 0;
      }
    }
  }
  return {times(kept, others), true};
}

} // namespace detail

} // namespace bb::config
