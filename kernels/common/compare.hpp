#pragma once
/// Element-by-element checks of a kernel's output against its CPU reference, on every core, in
/// fixed chunks so the first mismatch reported never depends on the core count. Host code only.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/host_parallel.hpp"
#include "registry/registry.hpp"

namespace bb::host {

/// Counts the elements i in [0, count) for which bad(i) holds; `describe(i)` words the first,
/// e.g. "out[3,17] = 0.5, expected 0.25".
template <class Bad, class Describe>
verify_result count_mismatches(std::size_t count, Bad bad, Describe describe) {
  constexpr std::size_t k_chunk = 1 << 16;
  const std::size_t chunks = (count + k_chunk - 1) / k_chunk;
  std::vector<std::uint64_t> wrong(chunks, 0);
  std::vector<std::size_t> first(chunks, SIZE_MAX);
  parallel_chunks(count, k_chunk, [&](std::size_t begin, std::size_t end) {
    const std::size_t c = begin / k_chunk;
    for (std::size_t i = begin; i < end; ++i)
      if (bad(i)) {
        if (wrong[c]++ == 0) first[c] = i;
      }
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

/// Bit-exact comparison, for copies and permutations: got[i] must hold the bytes of expected[i].
template <class T, class Describe>
verify_result compare_bitwise(const std::vector<T>& expected, const std::vector<T>& got, Describe describe) {
  const std::size_t count = std::min(expected.size(), got.size());
  verify_result r = count_mismatches(
      count, [&](std::size_t i) { return std::memcmp(&expected[i], &got[i], sizeof(T)) != 0; }, describe);
  if (expected.size() != got.size()) { // a size mismatch is a bug in the problem, never a pass
    r.ok = false;
    r.first_mismatch = "output holds " + std::to_string(got.size()) + " elements, expected " +
                       std::to_string(expected.size());
  }
  return r;
}

} // namespace bb::host
