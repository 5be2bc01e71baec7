#pragma once
/// Host-side helpers for families' checks: large outputs are verified on every core, in fixed
/// chunks so the result never depends on core count. Includes the seeded generator the checks use.
#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include "kernels/common/uniform.hpp"

namespace bb::host {

/// Calls body(begin, end) for consecutive chunks of [0, count), on up to every hardware thread.
template <class Body> void parallel_chunks(std::size_t count, std::size_t chunk, Body body) {
  const std::size_t chunks = (count + chunk - 1) / chunk;
  const std::size_t workers = std::min<std::size_t>(chunks, std::max(1u, std::thread::hardware_concurrency()));
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

} // namespace bb::host
