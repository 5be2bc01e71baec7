#include <algorithm>

#include "runner/common/metrics.hpp"
#include "runner/config/checks.hpp"
#include "runner/config/yaml_scalar.hpp"

namespace bb::config::detail {

namespace {

void check_family(check_context& ctx) {
  const YAML::Node node = field(ctx.root, "family");
  if (kind_of(node) != node_kind::string || field(ctx.root, "source"))
    return; // a source experiment's family is a label
  ctx.family = ctx.reg.find_family(node.Scalar());
  if (ctx.family != nullptr) return;
  std::vector<std::string> names;
  for (const auto* f : ctx.reg.families()) names.push_back(f->name);
  ctx.out.at_value(ctx.root, yaml_path{} / "family", "unknown family '" + node.Scalar() + "'",
                   names.empty() ? "no kernel family is registered in this build"
                                 : suggestion(node.Scalar(), names, "registered families: "));
}

void check_variants(check_context& ctx) {
  std::vector<std::string> registered;
  if (ctx.family != nullptr)
    for (const auto* v : ctx.reg.variants(ctx.family->name)) registered.push_back(v->name);
  for (const auto& [i, name] : string_items(field(ctx.root, "variants"))) {
    ctx.variants.push_back(name);
    if (ctx.family == nullptr || ctx.reg.find_variant(ctx.family->name, name) != nullptr) continue;
    ctx.out.at_value(ctx.root, yaml_path{} / "variants" / i,
                     "family '" + ctx.family->name + "' has no variant '" + name + "'",
                     suggestion(name, registered, "its variants are "));
  }
}

void check_metrics(check_context& ctx) {
  const YAML::Node node = field(ctx.root, "metrics");
  const node_kind kind = kind_of(node);
  if (kind == node_kind::missing) {
    ctx.metrics = metrics::metric_list::default_list().names();
    ctx.metrics_known = true;
  } else if (kind == node_kind::string) {
    if (const auto* set = metrics::find_set(node.Scalar())) {
      ctx.metrics = set->metrics;
      ctx.metrics_known = true;
      return;
    }
    std::vector<std::string> names;
    for (const auto& s : metrics::named_sets()) names.push_back(s.name);
    ctx.out.at_value(ctx.root, yaml_path{} / "metrics", "unknown metric set '" + node.Scalar() + "'",
                     suggestion(node.Scalar(), names, "named sets are "));
  } else if (kind == node_kind::list) {
    // The chip checks that the names exist; the schema has checked their form.
    for (const auto& item : string_items(node)) ctx.metrics.push_back(item.second);
    ctx.metrics_known = ctx.metrics.size() == node.size();
  }
}

} // namespace

void check_names(check_context& ctx) {
  check_family(ctx);
  check_variants(ctx);
  check_metrics(ctx);
}

} // namespace bb::config::detail
