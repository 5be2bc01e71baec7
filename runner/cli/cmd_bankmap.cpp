// bankbench bankmap: the bank of every element one warp touches, as a table and an SVG picture: of a
// tile and an access pattern, of a request of a variant's access plan, or of a source variant's
// kernel run from its PTX.
#include <fstream>
#include <iostream>
#include <stdexcept>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "runner/cli/commands.hpp"
#include "runner/common/atomic_file.hpp"
#include "runner/common/error.hpp"
#include "runner/common/path_text.hpp"
#include "runner/config/experiment.hpp"
#include "runner/config/experiment_files.hpp"
#include "runner/model/bankmap.hpp"
#include "runner/model/evaluate.hpp"
#include "runner/model/tile.hpp"
#include "runner/registry/params.hpp"
#include "runner/registry/registry.hpp"
#include "runner/render/bankmap_svg.hpp"
#include "runner/source/compile.hpp"
#include "runner/source/emulate.hpp"

namespace bb::cli {

namespace {

struct bankmap_options {
  model::tile_shape shape;
  std::string type = "float";
  int bytes = 0; ///< 0: as --type says
  int row = -1, col = -1, stride = -1;
  int lanes = 32;
  bool store = false;
  std::string variant;
  std::string experiment; ///< --experiment FILE: --variant names one of its source variants
  std::vector<std::string> params;
  int request = -1; ///< -1: the plan's most conflicted request
  std::string svg;
};

int element_bytes_of(const std::string& type) {
  if (type == "char") return 1;
  if (type == "short") return 2;
  if (type == "float") return 4;
  if (type == "double") return 8;
  return 16; // float4; CLI11 has checked the name
}

/// The request of `plan` that bankmap shows: --request K, or the first with the most wavefronts.
std::size_t pick_request(const model::access_plan& plan, int wanted) {
  if (plan.entries.empty()) throw usage_error("the plan has no shared-memory requests for these parameters");
  if (wanted >= 0) {
    if (static_cast<std::size_t>(wanted) >= plan.entries.size())
      throw usage_error(fmt::format("--request must be 0..{} for this plan", plan.entries.size() - 1));
    return static_cast<std::size_t>(wanted);
  }
  std::size_t best = 0;
  int most = -1;
  for (std::size_t i = 0; i < plan.entries.size(); ++i)
    if (const int wf = model::evaluate(plan.entries[i].access).wavefronts; wf > most) {
      most = wf;
      best = i;
    }
  return best;
}

model::bankmap from_variant(const bankmap_options& o) {
  const auto slash = o.variant.find('/');
  const variant_info* v = slash == std::string::npos ? nullptr
                                                     : registry::instance().find_variant(o.variant.substr(0, slash),
                                                                                         o.variant.substr(slash + 1));
  if (v == nullptr) throw usage_error("no variant '" + o.variant + "' (`bankbench list families` lists them)");
  if (!v->plan) throw usage_error(o.variant + " has no access plan for the bank model");
  const auto params = params_over_defaults(*registry::instance().find_family(v->family), o.params);
  model::access_plan plan;
  try {
    plan = v->plan(params);
  } catch (const unsupported_parameter& e) {
    throw usage_error(o.variant + ": " + e.what());
  } catch (const std::exception& e) { // a value the plan cannot take (negative, out of range)
    throw usage_error(
        fmt::format("{} {}: the access plan rejects these parameters: {}", o.variant, params.dump(), e.what()));
  }
  const std::size_t k = pick_request(plan, o.request);
  const auto& e = plan.entries[k];
  model::bankmap m;
  m.title = fmt::format("{} {}: request {} of {} ({}, issued {} times per launch){}{}", o.variant, params.dump(), k,
                        plan.entries.size(), model::kind_label(e.access.kind), e.count, plan.tile ? " on " : "",
                        plan.tile ? plan.tile->name : "");
  m.tile = plan.tile;
  m.access = e.access;
  return m;
}

/// The configuration of source variant `name` of `e` whose parameters are `given` (NAME=VALUE, each
/// matched against the value as `describe_params` writes it); the first of its sweep when none given.
const config::configuration& configuration_of(const std::vector<config::configuration>& configs,
                                              const config::experiment& e, const std::string& name,
                                              const std::vector<std::string>& given) {
  std::vector<std::string> seen;
  for (const auto& c : configs) {
    if (c.variant != name) continue;
    bool all = true;
    for (const auto& kv : given) {
      const auto eq = kv.find('=');
      if (eq == std::string::npos) throw usage_error("--params takes NAME=VALUE, not '" + kv + "'");
      const std::string key = kv.substr(0, eq), value = kv.substr(eq + 1);
      all = all && c.params.contains(key) &&
            (c.params.at(key).is_string() ? c.params.at(key).get<std::string>() : c.params.at(key).dump()) == value;
    }
    if (all) return c;
    seen.push_back(config::describe_params(c.params));
  }
  if (seen.empty()) throw usage_error(fmt::format("{} has no source variant '{}'", shown_path(e.path), name));
  throw usage_error(fmt::format("{}: variant '{}' has no configuration with {}; it has: {}", shown_path(e.path), name,
                                fmt::join(given, " "), fmt::join(seen, "; ")));
}

/// A request of source variant --variant of --experiment, from its kernel's PTX run on block
/// (0, 0, 0) of the configuration (bank-model.md, "In `--backend model`").
model::bankmap from_source(const bankmap_options& o) {
  // A missing file, a folder or a .cu file named as run and validate name them.
  const auto files = config::experiment_files({o.experiment});
  if (files.size() != 1)
    throw usage_error(fmt::format("--experiment takes one experiment file; {} holds {}: name one of them",
                                  shown_path(o.experiment), files.size()));
  const auto e = config::load_experiment_file(files.front(), registry::instance());
  const config::source_variant* v = e.find_source(o.variant);
  if (v == nullptr) {
    std::vector<std::string> names;
    for (const auto& s : e.sources) names.push_back(s.name);
    throw usage_error(fmt::format("{} has no source variant '{}'{}", shown_path(e.path), o.variant,
                                  names.empty() ? std::string(" (it has none)")
                                                : fmt::format(" (its source variants: {})", fmt::join(names, ", "))));
  }
  const auto configs = config::expand(e);
  const config::configuration& c = configuration_of(configs, e, o.variant, o.params);
  std::vector<source::block_request> requests;
  try {
    requests = source::block_requests(e, *v, c.params, e.seed, source::default_cache_dir());
  } catch (const source::not_modelled& err) {
    throw usage_error(std::string("the bank model cannot follow this kernel: ") + err.what());
  } catch (const unsupported_parameter& err) {
    throw usage_error(err.what());
  }
  if (requests.empty()) throw usage_error("block (0, 0, 0) of this configuration makes no shared-memory request");
  std::size_t k = 0;
  if (o.request >= 0) {
    if (static_cast<std::size_t>(o.request) >= requests.size())
      throw usage_error(fmt::format("--request must be 0..{} for this configuration", requests.size() - 1));
    k = static_cast<std::size_t>(o.request);
  } else {
    int most = -1;
    for (std::size_t i = 0; i < requests.size(); ++i)
      if (const int wf = model::evaluate(requests[i].access).wavefronts; wf > most) {
        most = wf;
        k = i;
      }
  }
  const auto& r = requests[k];
  model::bankmap m;
  m.title = fmt::format("{}/{} {}: request {} of {} ({}, {}, issued {} time{} by block (0, 0, 0))", e.name, v->name,
                        config::describe_params(c.params), k, requests.size(), model::kind_label(r.access.kind),
                        r.where, r.count, r.count == 1 ? "" : "s");
  m.access = r.access;
  return m;
}

model::bankmap from_tile(const bankmap_options& o) {
  model::tile_shape s = o.shape;
  s.element_bytes = o.bytes > 0 ? o.bytes : element_bytes_of(o.type);
  s.type_name = o.bytes > 0 ? fmt::format("{}-byte", o.bytes) : o.type;
  model::access_pattern p;
  p.kind = o.row >= 0      ? model::access_pattern::along::row
           : o.stride >= 0 ? model::access_pattern::along::stride
                           : model::access_pattern::along::column;
  p.index = o.row >= 0 ? o.row : o.stride >= 0 ? o.stride : std::max(o.col, 0);
  p.lanes = o.lanes;
  p.direction = o.store ? model::access_kind::store : model::access_kind::load;
  model::bankmap m;
  try {
    m.tile = model::make_tile(s);
    m.access = model::make_access(*m.tile, p);
  } catch (const std::invalid_argument& e) {
    throw usage_error(e.what());
  }
  m.title = model::describe(p) + " of " + m.tile->name;
  return m;
}

int run_bankmap(const bankmap_options& o) {
  const model::bankmap m = o.variant.empty() ? from_tile(o) : o.experiment.empty() ? from_variant(o) : from_source(o);
  if (!o.svg.empty()) { // first: a file that cannot be written (a folder named) ends the command before its output
    write_file_atomically(o.svg, [&](std::ostream& f) { render::write_bankmap_svg(m, f); });
    spdlog::info("wrote {}", o.svg);
  }
  model::write_text(m, std::cout);
  return 0;
}

} // namespace

run_fn setup_bankmap(CLI::App& sub, const global_options&) {
  auto o = std::make_shared<bankmap_options>();
  const auto index = number_rule::integer(0, 1023);
  auto* rows = add_number_option(sub, "--rows", o->shape.rows, "tile rows", number_rule::integer(1, 1024))
                   ->capture_default_str();
  auto* cols = add_number_option(sub, "--cols", o->shape.cols, "tile columns (elements, before padding)",
                                 number_rule::integer(1, 1024))
                   ->capture_default_str();
  auto* type = sub.add_option("-t,--type", o->type, "element type")
                   ->check(CLI::IsMember({"char", "short", "float", "double", "float4"}))
                   ->capture_default_str();
  auto* bytes = add_number_option(sub, "--bytes", o->bytes,
                                  "element size in bytes instead of --type (1, 2, 4, 8 or 16)",
                                  number_rule::integer(1, 16).said("1, 2, 4, 8 or 16 bytes"))
                    ->excludes(type);
  auto* pad = add_number_option(sub, "--pad", o->shape.pad, "padding elements after each row",
                                number_rule::integer(0, 1024))
                  ->capture_default_str();
  auto* swz = add_number_option(sub, "--swizzle", o->shape.swizzle,
                                "XOR swizzle: element (r, c) is stored at column c ^ (r % S); 0: none",
                                number_rule::integer(0, 1024))
                  ->capture_default_str();
  auto* cute = sub.add_option_function<std::vector<int>>(
                      "--cute-swizzle",
                      [o](const std::vector<int>& v) {
                        o->shape.cute_b = v[0];
                        o->shape.cute_m = v[1];
                        o->shape.cute_s = v[2];
                      },
                      "CuTe Swizzle<B,M,S> on byte offsets, e.g. 3,4,3 (TMA 128B; 2,4,3 is 64B, 1,4,3 is 32B)")
                   ->expected(3)
                   ->delimiter(',')
                   ->excludes(swz);
  check_numbers(*cute, number_rule::integer(0, 10).said("three whole numbers B,M,S from 0 to 10, e.g. 3,4,3"));
  auto* row = add_number_option(sub, "--row", o->row, "the warp reads row R: lane l reads (R, l)", index);
  auto* col = add_number_option(sub, "--col", o->col,
                                "the warp reads column C: lane l reads (l, C) (the default, C = 0)", index);
  auto* stride = add_number_option(sub, "--stride", o->stride,
                                   "lane l reads element l*S in row-major order (0: broadcast)",
                                   number_rule::integer(0, 1 << 20));
  row->excludes(col)->excludes(stride);
  col->excludes(stride);
  auto* lanes = add_number_option(sub, "--lanes", o->lanes, "active lanes, 0..N-1", number_rule::integer(1, 32))
                    ->capture_default_str();
  auto* store = sub.add_flag("--store", o->store, "a store rather than a load");
  auto* variant = sub.add_option("--variant", o->variant,
                                 "draw a request of this variant's access plan, e.g. transpose/naive (with "
                                 "--experiment: a source variant of that file, from its kernel's code)");
  refuse_empty(
      sub.add_option("--experiment", o->experiment,
                     "an experiment file whose source variant --variant names: the request comes from running its "
                     "kernel's PTX (block (0, 0, 0)), no access plan needed"),
      "an experiment file")
      ->needs(variant);
  sub.add_option("--params", o->params,
                 "the variant's parameters, NAME=VALUE ... (with --experiment: which configuration of its sweep; "
                 "default its first)")
      ->needs(variant);
  add_number_option(sub, "--request", o->request, "which of the distinct requests (default: the most conflicted)",
                    number_rule::integer(0, 1 << 20))
      ->needs(variant);
  for (auto* opt : {rows, cols, type, bytes, pad, swz, cute, row, col, stride, lanes, store}) variant->excludes(opt);
  refuse_empty(sub.add_option("--svg", o->svg, "also write the picture to FILE (SVG)"),
               "a file name, e.g. bankmap.svg");
  return [o] { return run_bankmap(*o); };
}

} // namespace bb::cli
