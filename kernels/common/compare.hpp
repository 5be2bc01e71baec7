#pragma once
/// Element-by-element checks of a kernel's output against its CPU reference, on every core, in
/// fixed chunks so the first mismatch reported never depends on the core count. Host code only.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/host_parallel.hpp"
#include "runner/registry/registry.hpp"

namespace bb::host {

/// Counts the wrong elements of [0, count) that walk(begin, end, report) finds chunk by chunk, for
/// checks that must go through a chunk in order (a running sum): walk calls report(i) for each
/// wrong i in [begin, end), in increasing order. `describe(i)` words the first, e.g.
/// "out[3,17] = 0.5, expected 0.25". Chunks start at multiples of `chunk`.
template <class Walk, class Describe>
verify_result count_mismatches_walk(std::size_t count, std::size_t chunk, Walk walk, Describe describe) {
  const std::size_t chunks = (count + chunk - 1) / chunk;
  std::vector<std::uint64_t> wrong(chunks, 0);
  std::vector<std::size_t> first(chunks, SIZE_MAX);
  parallel_chunks(count, chunk, [&](std::size_t begin, std::size_t end) {
    const std::size_t c = begin / chunk;
    walk(begin, end, [&](std::size_t i) {
      if (wrong[c]++ == 0) first[c] = i;
    });
  });
  verify_result r;
  r.checked = count;
  for (std::size_t c = 0; c < chunks; ++c) {
    r.mismatches += wrong[c];
    if (wrong[c] != 0 && r.first_mismatch.empty()) r.first_mismatch = describe(first[c]);
  }
  r.ok = r.mismatches == 0;
  return r;
}

/// Counts the elements i in [0, count) for which bad(i) holds; `describe(i)` words the first.
template <class Bad, class Describe> verify_result count_mismatches(std::size_t count, Bad bad, Describe describe) {
  return count_mismatches_walk(
      count, std::size_t{1} << 16,
      [&](std::size_t begin, std::size_t end, auto report) {
        for (std::size_t i = begin; i < end; ++i)
          if (bad(i)) report(i);
      },
      describe);
}

/// Adds the result of one piece of an output, checked after the pieces before it, to `total`:
/// mismatches add up, and the first mismatch stays that of the earliest piece with one.
inline void add_piece(verify_result& total, const verify_result& piece) {
  total.checked += piece.checked;
  total.mismatches += piece.mismatches;
  if (total.first_mismatch.empty()) total.first_mismatch = piece.first_mismatch;
  total.ok = total.mismatches == 0 && total.first_mismatch.empty();
}

} // namespace bb::host
