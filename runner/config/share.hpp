#pragma once
/// Shares of a suite's configurations: `run --shard I/N` (machines, Slurm array tasks) and
/// `run --devices` (GPUs of one host). A share is stable: the same experiment files and the same
/// N give the same shares on every machine. No CUDA headers.
///
/// Rule (docs/clusters.md): within each experiment, the units (each configuration, or with
/// `:variant` each variant with all its configurations) are taken in expansion order, the order
/// `run --dry-run` lists them, and unit k goes to share (k + o) mod N, where o is the FNV-1a
/// 64-bit hash of the experiment's name, mod N. The offset keeps small experiments from all
/// starting on share 0. A chain "1/4,0/2" applies the first share, then the second to what is left.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runner/config/experiment.hpp"

namespace bb::config {

enum class share_unit { configuration, variant };

struct share {
  int index = 0, count = 1;
  share_unit unit = share_unit::configuration;
};

/// "I/N", "I/N:variant", or several joined by ','. Throws usage_error naming `option` and a fix.
std::vector<share> parse_shares(const std::string& text, const std::string& option);

/// The text parse_shares reads back ("" for an empty chain).
std::string share_text(const std::vector<share>& chain);

/// `chain` with `next` appended.
std::vector<share> then(std::vector<share> chain, const share& next);

/// The configurations of `e` (expand(e)) that belong to `chain`, by index, ascending.
std::vector<std::size_t> configurations_in_share(const experiment& e, const std::vector<configuration>& configs,
                                                 const std::vector<share>& chain);

/// FNV-1a, 64 bits: the documented, platform-independent hash of the rule above.
std::uint64_t fnv1a_64(const std::string& text);

} // namespace bb::config
