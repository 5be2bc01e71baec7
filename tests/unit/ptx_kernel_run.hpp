#pragma once
/// Runs one CTA of a fixture kernel over typed host buffers (tests/unit/test_ptx_*.cpp).
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "runner/ptx/run.hpp"
#include "tests/unit/ptx_test_util.hpp"

namespace bb::ptx::test {

template <class T> std::vector<std::uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<std::uint8_t> out(v.size() * sizeof(T));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

template <class T> std::vector<T> values_at(const global_memory& g, std::uint64_t address) {
  const auto b = g.buffer(address);
  std::vector<T> out(b.size() / sizeof(T));
  std::memcpy(out.data(), b.data(), out.size() * sizeof(T));
  return out;
}

/// Buffer i is at 0x1000'0000 * (i + 1); the kernel's parameters are those addresses in order.
struct kernel_run {
  module m;
  global_memory global;
  std::vector<std::uint64_t> addresses;
  cta_result result;

  kernel_run(const std::string& fixture, const std::string& name, const std::vector<std::vector<std::uint8_t>>& buffers,
             std::array<std::uint32_t, 3> block, std::array<std::uint32_t, 3> cta = {0, 0, 0},
             std::array<std::uint32_t, 3> grid = {1, 1, 1}, const std::string& ptx = {}) {
    m = parse(ptx.empty() ? read_fixture(fixture) : ptx); // `ptx`: the text itself instead of a fixture
    for (std::size_t i = 0; i < buffers.size(); ++i) {
      addresses.push_back(0x1000'0000ull * (i + 1));
      global.add(addresses.back(), buffers[i]);
    }
    const entry& e = m.find(name);
    launch l;
    l.grid = grid;
    l.block = block;
    l.cta = cta;
    l.params = pack_params(e, addresses);
    result = run_cta(prepare(m, e), l, global);
  }
  template <class T> std::vector<T> out(std::size_t i) const { return values_at<T>(global, addresses.at(i)); }
};

} // namespace bb::ptx::test
