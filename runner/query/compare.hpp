#pragma once
/// `bankbench compare`: results side by side with the chosen metrics as columns and each side's
/// ratio to the first: the variants of one run, one experiment across GPUs, or any runs,
/// baselines and commits against each other.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "runner/query/side.hpp"

namespace bb::query {

struct compare_table {
  std::string title;
  std::vector<std::string> labels;       ///< per side: a column heading ("A", or a variant)
  std::vector<std::string> names;        ///< per side: its full name for csv and json ("run 3", "naive")
  std::vector<std::string> descriptions; ///< per side: the header line that explains the label
  std::vector<std::string> metrics;
  bool by_variant = false; ///< sides are the variants of one run; rows carry no variant
  struct row {
    std::string experiment, variant, params_json;
    std::vector<std::vector<std::optional<double>>> values; ///< [metric][side]
  };
  std::vector<row> rows;
};

/// Rows are configurations (experiment, variant, parameters) of any side, in the order the first
/// side that has them ran them; architectures are not matched: comparing them is the point.
compare_table compare_sides(const std::vector<side>& sides, const std::vector<std::string>& metrics);

/// The variants of one side as its columns, rows by experiment and parameters; `reference`
/// (a short or full variant id, or empty for the first that ran) is the first column.
compare_table compare_variants(const side& s, const std::vector<std::string>& metrics, const std::string& reference);

/// compare_variants() once per experiment of `s`, in the order they ran: variants are compared
/// within an experiment, never across. `reference` applies to the experiments that ran it and
/// must be a variant of at least one.
std::vector<compare_table> compare_variants_per_experiment(const side& s, const std::vector<std::string>& metrics,
                                                           const std::string& reference);

/// `format`: "table", "markdown", "csv" or "json".
void write_compare(const compare_table& t, std::ostream& out, const std::string& format);

/// Several tables: one after the other, a blank line between (csv: each with its header); json:
/// one table's object as write_compare() writes it, an array of them for more than one.
void write_compares(const std::vector<compare_table>& tables, std::ostream& out, const std::string& format);

} // namespace bb::query
