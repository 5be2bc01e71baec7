#pragma once
/// The baseline document: what `baseline save` stores, `baseline export` writes and `baseline
/// import` reads. A small JSON file, stable from one save to the next so that it diffs well in
/// git: per configuration, the per-request ratios' and the requests' mean, min, max, launches and
/// learned noise, and the timing samples.
#include <string>

#include <nlohmann/json.hpp>

#include "runner/query/side.hpp"
#include "runner/store/baselines.hpp"

namespace bb::query {

/// The document's format version; a newer one is refused.
inline constexpr int k_baseline_format = 1;

/// A baseline named `name` of everything in `from`; `noise` is what regress learned from
/// repeated runs (by noise_key()), `source` says where it came from ("run 12").
nlohmann::json make_baseline_document(const std::string& name, const side& from,
                                      const std::map<std::string, double>& noise, const std::string& source,
                                      const std::string& created_at);

/// Checks a document read from `origin` (a file name, or "baseline NAME"); throws
/// bb::usage_error naming `origin` and what is wrong.
void check_baseline_document(const nlohmann::json& doc, const std::string& origin);

/// The side a checked document stands for, labelled "baseline <name>".
side side_of_baseline(const nlohmann::json& doc);

/// The database row for a document: its summary columns and the text itself.
store::baseline_entry baseline_entry_of(const nlohmann::json& doc, const std::string& source);

} // namespace bb::query
