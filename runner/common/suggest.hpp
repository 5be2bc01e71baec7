#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace bb {

/// Optimal-string-alignment edit distance (Damerau–Levenshtein without repeated edits).
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `word` when it is close enough to be a typo (distance at most
/// max(2, |word| / 3)); "" when none is.
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

/// "did you mean 'x'?" for the closest candidate, or "" when none is close.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

} // namespace bb
