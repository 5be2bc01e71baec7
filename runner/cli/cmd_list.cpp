// bankbench list [families|metrics|runs|gpus]
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runner/cli/commands.hpp"
#include "runner/common/error.hpp"
#include "runner/common/metrics.hpp"
#include "runner/profile/offline.hpp"
#include "runner/query/cells.hpp"
#include "runner/query/list.hpp"
#include "runner/query/table.hpp"
#include "runner/registry/registry.hpp"
#include "runner/store/database.hpp"

namespace bb::cli {

namespace {
struct list_options {
  std::string what = "families";
  std::string format = "table";
};

void list_families() {
  for (const auto* f : registry::instance().families()) {
    std::printf("%s: %s\n", f->name.c_str(), f->description.c_str());
    for (const auto& p : f->params)
      std::printf("  param %s (default %s): %s\n", p.name.c_str(), nlohmann::json(p.default_value).dump().c_str(),
                  p.description.c_str());
    for (const auto* v : registry::instance().variants(f->name))
      std::printf("  %-24s %s\n", v->id().c_str(), v->summary.c_str());
  }
}

// For programs and Markdown: one row per variant, its family and the family's parameter defaults.
void list_families_as(query::output_format format) {
  query::text_table t({{"family"}, {"variant"}, {"summary"}, {"params", query::align::left, "param_defaults"}});
  for (const auto* f : registry::instance().families()) {
    nlohmann::json defaults = nlohmann::json::object();
    for (const auto& p : f->params) defaults[p.name] = p.default_value;
    for (const auto* v : registry::instance().variants(f->name))
      t.add_row({f->name, v->id(), v->summary, query::params(defaults.dump())});
  }
  t.write(std::cout, format);
}

// For programs and Markdown: one row per counter of each named set.
void list_metrics_as(query::output_format format) {
  query::text_table t({{"set"}, {"metric"}, {"kind"}});
  for (const auto& s : metrics::named_sets())
    for (const auto& m : s.metrics) t.add_row({s.name, m, "counter"});
  for (const auto& d : metrics::derived_metrics()) t.add_row({"derived", d.name, "derived"});
  t.write(std::cout, format);
}

void list_metrics() {
  for (const auto& s : metrics::named_sets()) {
    std::printf("%s: %s\n", s.name.c_str(), s.description.c_str());
    for (const auto& m : s.metrics) std::printf("  %s\n", m.c_str());
  }
  // Per chip, from the CUPTI host API (no GPU needed): passes, and the counters a chip lacks, whose
  // derived values are then absent (never 0).
  for (const char* chip : {"GA100", "GH100", "GB100"}) {
    for (const auto& s : metrics::named_sets()) {
      try {
        const auto c = profile::check_offline(chip, s.metrics);
        std::printf("%s on %s: %zu pass(es)", s.name.c_str(), chip, c.passes);
        if (c.unknown.empty())
          std::printf(", every counter present\n");
        else
          std::printf(", not on this chip (no value, not 0): %zu\n", c.unknown.size());
        for (const auto& u : c.unknown) std::printf("  absent: %s\n", u.c_str());
      } catch (const error& e) {
        std::printf("%s on %s: pass count unavailable (%s)\n", s.name.c_str(), chip, e.what());
      }
    }
  }
  std::printf("derived (per launch, usable in expect:):\n");
  for (const auto& d : metrics::derived_metrics()) std::printf("  %-36s %s\n", d.name.c_str(), d.description.c_str());
}

int run_list(const list_options& o, const global_options& g) {
  const auto format = query::parse_format(o.format);
  const bool text = format == query::output_format::table; // the catalogue's own layout, with descriptions
  if (o.what == "families")
    text ? list_families() : list_families_as(format);
  else if (o.what == "metrics")
    text ? list_metrics() : list_metrics_as(format);
  else if (o.what == "runs")
    query::list_runs(store::database::open_for_query(g.db), std::cout, query::parse_format(o.format));
  else if (o.what == "gpus")
    query::list_gpus(store::database::open_for_query(g.db), std::cout, query::parse_format(o.format));
  return 0;
}
} // namespace

run_fn setup_list(CLI::App& sub, const global_options& global) {
  auto o = std::make_shared<list_options>();
  sub.add_option("what", o->what, "what to list")
      ->check(CLI::IsMember({"families", "metrics", "runs", "gpus"}))
      ->capture_default_str();
  add_format_option(sub, o->format,
                    "families and metrics as one row per variant or counter outside table; runs and gpus with whole "
                    "commits, fingerprints and byte counts in csv and json");
  return [o, &global] { return run_list(*o, global); };
}

} // namespace bb::cli
