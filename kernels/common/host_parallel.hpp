#pragma once
/// Host-side helpers for families' set-up and checks: large inputs (256 MB at n = 8192) are
/// filled and verified on every core, in fixed chunks so the result never depends on core count.
#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include "common/uniform.hpp"

namespace bb::host {

/// Calls body(begin, end) for consecutive chunks of [0, count), on up to every hardware thread.
template <class Body> void parallel_chunks(std::size_t count, std::size_t chunk, Body body) {
  const std::size_t chunks = (count + chunk - 1) / chunk;
  const std::size_t workers =
      std::min<std::size_t>(chunks, std::max(1u, std::thread::hardware_concurrency()));
  if (workers <= 1) {
    for (std::size_t c = 0; c < chunks; ++c) body(c * chunk, std::min(count, (c + 1) * chunk));
    return;
  }
  std::vector<std::thread> pool;
  for (std::size_t w = 0; w < workers; ++w)
    pool.emplace_back([=, &body] {
      for (std::size_t c = w; c < chunks; c += workers) body(c * chunk, std::min(count, (c + 1) * chunk));
    });
  for (auto& t : pool) t.join();
}

/// v[i] = uniform_at(seed, i), on every core: the same seed gives the same inputs on every machine.
inline void fill_uniform(std::vector<float>& v, std::uint64_t seed) {
  parallel_chunks(v.size(), std::size_t{1} << 16, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) v[i] = uniform_at(seed, i);
  });
}

} // namespace bb::host
