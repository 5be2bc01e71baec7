// How many warp requests the bank model evaluates per second on one core (the issue asks for at
// least 10 million). Run: build/bb_model_bench (items_per_second is warp requests per second).
#include <benchmark/benchmark.h>

#include <vector>

#include "runner/model/evaluate.hpp"

namespace {

using bb::model::warp_access;

/// Lane l accesses `width` bytes at l * stride elements.
warp_access strided(int stride, int width) {
  warp_access a;
  a.width = width;
  for (int l = 0; l < 32; ++l) a.address[static_cast<std::size_t>(l)] = static_cast<std::uint32_t>(l * stride * width);
  return a;
}

void run(benchmark::State& state, const std::vector<warp_access>& mix) {
  std::size_t i = 0;
  long long wavefronts = 0;
  for (auto _ : state) {
    wavefronts += bb::model::evaluate(mix[i]).wavefronts;
    i = i + 1 == mix.size() ? 0 : i + 1;
  }
  benchmark::DoNotOptimize(wavefronts);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}

void conflict_free(benchmark::State& state) { run(state, {strided(1, 4)}); }
void broadcast(benchmark::State& state) { run(state, {strided(0, 4)}); }
void way_32(benchmark::State& state) { run(state, {strided(32, 4)}); }

/// The whole stride x width sweep: strides 1..64, widths 1, 2, 4, 8, 16 (320 requests).
void stride_sweep(benchmark::State& state) {
  std::vector<warp_access> mix;
  for (int width : {1, 2, 4, 8, 16})
    for (int stride = 1; stride <= 64; ++stride) mix.push_back(strided(stride, width));
  run(state, mix);
}

/// A transpose tile's 64 requests: 32 row stores and 32 column loads of float tile[32][32].
void transpose_naive(benchmark::State& state) {
  std::vector<warp_access> mix;
  for (int r = 0; r < 32; ++r) {
    warp_access row, col;
    row.kind = bb::model::access_kind::store;
    for (int l = 0; l < 32; ++l) {
      row.address[static_cast<std::size_t>(l)] = static_cast<std::uint32_t>((r * 32 + l) * 4);
      col.address[static_cast<std::size_t>(l)] = static_cast<std::uint32_t>((l * 32 + r) * 4);
    }
    mix.push_back(row);
    mix.push_back(col);
  }
  run(state, mix);
}

} // namespace

BENCHMARK(conflict_free);
BENCHMARK(broadcast);
BENCHMARK(way_32);
BENCHMARK(stride_sweep);
BENCHMARK(transpose_naive);
BENCHMARK_MAIN();
