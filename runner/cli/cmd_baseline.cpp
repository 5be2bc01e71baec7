// bankbench baseline save|list|show|export|import|delete: named baselines for regress.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "runner/cli/commands.hpp"
#include "runner/common/atomic_file.hpp"
#include "runner/common/error.hpp"
#include "runner/common/path_text.hpp"
#include "runner/query/baseline_doc.hpp"
#include "runner/query/cells.hpp"
#include "runner/query/compare.hpp"
#include "runner/query/metric_info.hpp"
#include "runner/query/noise.hpp"
#include "runner/query/selector.hpp"
#include "runner/query/table.hpp"
#include "runner/store/baselines.hpp"
#include "runner/store/database.hpp"
#include "runner/store/samples.hpp"

namespace bb::cli {

namespace {
struct baseline_options {
  std::string name, file, out, rename;
  std::string format = "table";
  std::vector<std::string> specs;
  bool replace = false;
  CLI::App *save = nullptr, *list = nullptr, *show = nullptr, *exporting = nullptr, *importing = nullptr,
           *remove = nullptr;
};

constexpr std::size_t k_longest_name = 100;
/// About 100,000 configurations; `baseline export` writes some 2.4 kB for each.
constexpr std::size_t k_largest_baseline_file = std::size_t{256} << 20;

void check_name(const std::string& name) {
  // Names are printed in tables, reports and commands to copy: no blank, no control byte (an
  // escape sequence would drive the terminal), no name wider than a table.
  const auto odd = std::find_if(name.begin(), name.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u <= 0x20 || u == 0x7f;
  });
  if (odd != name.end()) {
    const auto byte = static_cast<unsigned char>(*odd);
    const std::string shown = shown_path(name);
    throw usage_error(fmt::format("{} cannot name a baseline: it holds a {} (byte 0x{:02x}); use letters, digits, "
                                  "'_', '-' or '.', e.g. main or sm_90",
                                  shown == name ? "'" + name + "'" : shown, byte == 0x20 ? "blank" : "control byte",
                                  byte));
  }
  const bool digits = !name.empty() && name.find_first_not_of("0123456789") == std::string::npos;
  if (name.empty() || digits || name == "latest" || name.find(':') != std::string::npos)
    throw usage_error(fmt::format("'{}' cannot name a baseline: it would read as a run or a commit; use letters, "
                                  "e.g. main or sm_90",
                                  name));
  if (name.size() > k_longest_name)
    throw usage_error(fmt::format("a baseline name of {} bytes is too long (at most {}); use a short one, e.g. main",
                                  name.size(), k_longest_name));
}

std::string stored_name(const std::string& name, const store::database& db) {
  if (!store::find_baseline(db, name))
    throw usage_error(fmt::format("no baseline '{}' in {}; `bankbench baseline list` lists them", name, db.path()));
  return name;
}

int save(const baseline_options& o, const global_options& g) {
  check_name(o.name);
  auto db = store::database::open_existing(g.db);
  query::side from;
  std::vector<std::string> labels;
  const std::vector<std::string> specs = o.specs.empty() ? std::vector<std::string>{"latest"} : o.specs;
  for (const auto& spec : specs) {
    auto s = query::select_side(db, spec, {{}, true});
    if (s.is_baseline)
      throw usage_error(fmt::format("'{}' is a baseline; to copy one, export it and import it with --name", spec));
    labels.push_back(s.label);
    from.runs.insert(from.runs.end(), s.runs.begin(), s.runs.end());
    from.rows.insert(from.rows.end(), s.rows.begin(), s.rows.end());
  }
  std::set<std::pair<std::string, std::string>> scope;
  std::set<std::string> metrics;
  for (const auto& r : from.rows) {
    scope.insert({r.experiment, r.arch});
    for (const auto& [m, stats] : r.metrics) metrics.insert(m);
  }
  const auto noise = query::learn_noise(db, scope, {}, {metrics.begin(), metrics.end()});
  const std::string source = fmt::format("{}", fmt::join(labels, ", "));
  const auto doc = query::make_baseline_document(o.name, from, noise, source, store::utc_now_iso8601());
  const auto entry = query::baseline_entry_of(doc, source);
  if (!store::save_baseline(db, entry, o.replace))
    throw usage_error(fmt::format("baseline '{}' exists in {}; pass --replace to overwrite it", o.name, db.path()));
  std::cout << fmt::format("saved baseline {}: {} configurations of {} ({} on {})\n", o.name, from.rows.size(), source,
                           entry.experiments, entry.architectures);
  return 0;
}

int list(const baseline_options& o, const global_options& g) {
  const auto db = store::database::open_for_query(g.db);
  const auto format = query::parse_format(o.format);
  query::text_table t({{"name"},
                       {"created", query::align::left, "created_at"},
                       {"source"},
                       {"experiments"},
                       {"arch", query::align::left, "architectures"},
                       {"configurations", query::align::right}});
  for (const auto& b : store::list_baselines(db)) {
    const auto doc = nlohmann::json::parse(b.content_json, nullptr, false);
    const auto n = doc.is_object() && doc.contains("configurations") ? doc["configurations"].size() : 0;
    t.add_row(
        {b.name, b.created_at, b.source, b.experiments, b.architectures, query::count(static_cast<std::int64_t>(n))});
  }
  if (t.rows() == 0 && !query::for_programs(format))
    std::cout << "no baselines in " << shown_path(db.path()) << " yet; `bankbench baseline save NAME` makes one\n";
  else
    t.write(std::cout, format);
  return 0;
}

nlohmann::json document(const store::database& db, const std::string& name) {
  const auto entry = store::find_baseline(db, stored_name(name, db));
  return nlohmann::json::parse(entry->content_json);
}

int show(const baseline_options& o, const global_options& g) {
  const auto db = store::database::open_for_query(g.db);
  const auto doc = document(db, o.name);
  query::check_baseline_document(doc, "baseline " + o.name);
  const auto side = query::side_of_baseline(doc);
  query::write_compare(query::compare_sides({side}, query::default_compare_metrics()), std::cout, "table");
  return 0;
}

int export_baseline(const baseline_options& o, const global_options& g) {
  const auto db = store::database::open_for_query(g.db);
  const std::string text = document(db, o.name).dump(2) + "\n";
  if (o.out.empty() || o.out == "-") {
    std::cout << text;
    return 0;
  }
  write_file_atomically(o.out, text);
  spdlog::info("wrote baseline {} to {}", o.name, o.out);
  return 0;
}

int import_baseline(const baseline_options& o, const global_options& g) {
  // Judged before it is opened: a FIFO would wait for a writer, /dev/zero could be read until
  // memory runs out.
  struct stat st {};
  if (::stat(o.file.c_str(), &st) != 0)
    throw usage_error(fmt::format("cannot read {}: {}", shown_path(o.file), std::strerror(errno)));
  if (!S_ISREG(st.st_mode))
    throw usage_error(fmt::format("{} is {}, not a baseline file; give the JSON file `baseline export` wrote",
                                  shown_path(o.file), file_type_words(st.st_mode)));
  if (st.st_size > static_cast<off_t>(k_largest_baseline_file))
    throw usage_error(fmt::format("{} is {} bytes; a baseline file is at most {} bytes (256 MiB)", shown_path(o.file),
                                  static_cast<long long>(st.st_size), k_largest_baseline_file));
  std::ifstream in(o.file, std::ios::binary);
  if (!in) throw usage_error(fmt::format("cannot read {}: {}", shown_path(o.file), std::strerror(errno)));
  std::stringstream text;
  text << in.rdbuf();
  auto doc = nlohmann::json::parse(text.str(), nullptr, false);
  if (doc.is_discarded())
    throw usage_error(fmt::format("{}: not JSON; `bankbench baseline export` writes the format", shown_path(o.file)));
  query::check_baseline_document(doc, o.file);
  if (!o.rename.empty()) doc["name"] = o.rename;
  const std::string name = doc["name"];
  check_name(name);
  auto db = store::database::open(g.db);
  if (!store::save_baseline(db, query::baseline_entry_of(doc, "file " + o.file), o.replace))
    throw usage_error(
        fmt::format("baseline '{}' exists in {}; pass --replace to overwrite it, or --name", name, db.path()));
  std::cout << fmt::format("imported baseline {} from {}: {} configurations\n", name, shown_path(o.file),
                           doc["configurations"].size());
  return 0;
}

int remove(const baseline_options& o, const global_options& g) {
  auto db = store::database::open_existing(g.db);
  if (!store::delete_baseline(db, stored_name(o.name, db))) return 0;
  std::cout << "deleted baseline " << o.name << '\n';
  return 0;
}

int run_baseline(const baseline_options& o, const global_options& g) {
  if (o.save->parsed()) return save(o, g);
  if (o.list->parsed()) return list(o, g);
  if (o.show->parsed()) return show(o, g);
  if (o.exporting->parsed()) return export_baseline(o, g);
  if (o.importing->parsed()) return import_baseline(o, g);
  return remove(o, g);
}
} // namespace

run_fn setup_baseline(CLI::App& sub, const global_options& global) {
  auto o = std::make_shared<baseline_options>();
  sub.require_subcommand(1);
  o->save = sub.add_subcommand("save", "save runs' results as a named baseline");
  o->save->add_option("name", o->name, "the baseline's name, e.g. main or sm_90")->required();
  o->save->add_option("runs", o->specs, std::string("what to save: ") + k_spec_kinds + " (default: latest)");
  o->save->add_flag("--replace", o->replace, "overwrite a baseline of the same name");
  o->list = sub.add_subcommand("list", "list the saved baselines");
  add_format_option(*o->list, o->format);
  o->show = sub.add_subcommand("show", "print a baseline's values");
  o->show->add_option("name", o->name, "baseline name")->required();
  o->exporting = sub.add_subcommand("export", "write a baseline as JSON, to commit next to the kernels");
  o->exporting->add_option("name", o->name, "baseline name")->required();
  refuse_empty(o->exporting->add_option("-o,--out", o->out,
                                        "file to write, e.g. results/baselines/sm_90.json (default: stdout)"),
               "a file name (or - for standard output)");
  o->importing = sub.add_subcommand("import", "store a baseline from a JSON file that `baseline export` wrote");
  refuse_empty(o->importing->add_option("file", o->file, "the JSON file"), "a JSON file `baseline export` wrote")
      ->required();
  refuse_empty(o->importing->add_option("--name", o->rename, "store it under this name instead of the one in the file"),
               "a baseline name, e.g. main");
  o->importing->add_flag("--replace", o->replace, "overwrite a baseline of the same name");
  o->remove = sub.add_subcommand("delete", "delete a baseline");
  o->remove->add_option("name", o->name, "baseline name")->required();
  return [o, &global] { return run_baseline(*o, global); };
}

} // namespace bb::cli
