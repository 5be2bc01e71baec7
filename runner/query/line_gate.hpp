#pragma once
/// `regress --lines` and `compare runs A B --lines`: per source line, the excess wavefronts before
/// and after (line_diff.hpp). The gate judges a line's excess per execution (wavefronts beyond the
/// ideal per warp instruction, as regress judges wavefronts per request) by regress's minimum
/// effect: it counts when it moves by more than --min-effect (0.05) and --min-change (1 %) of the
/// baseline, whichever is larger. Per-line counts come from instrumentation, not sampling, so no
/// noise is learned for them.
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "runner/query/line_diff.hpp"
#include "runner/query/regress.hpp"

namespace bb::query {

/// A line whose excess per execution changed beyond the allowance.
struct line_finding {
  std::size_t configuration = 0, line = 0; ///< indexes into line_diff's configurations and their lines
  outcome result = outcome::regression;
  double allowance = 0; ///< in excess wavefronts per execution
};

struct line_regress_result {
  line_diff diff;
  regress_options options;
  std::vector<line_finding> findings; ///< regressions and improvements, in the diff's order
  int lines_compared = 0;             ///< lines on both sides
  int lines_one_side = 0;             ///< lines on one side only: reported, never gated

  /// Regressions: exit code 1.
  [[nodiscard]] std::size_t gated() const;
};

/// Judges every line on both sides of `diff`.
line_regress_result regress_lines(line_diff diff, const regress_options& options);

/// `format`: "table", "markdown", "csv" or "json". Text: the sides, what was compared, the
/// allowance, then sections (line regressions, line improvements, moved lines, lines on one side
/// only) and the verdict; csv: one row per line on both sides or one; json: all of it.
void write_line_regress(const line_regress_result& r, std::ostream& out, const std::string& format);

/// Every line of every configuration, excess and excess per execution on each side.
void write_line_compare(const line_diff& d, std::ostream& out, const std::string& format);

} // namespace bb::query
