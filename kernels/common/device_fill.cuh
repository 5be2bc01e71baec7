#pragma once
/// Seeded inputs written on the GPU: out[i] = T(uniform_at(seed, first + i)), the same values the
/// host helpers give, at memory bandwidth and with no host copy of the input.
#include <cstddef>
#include <cstdint>

#include "kernels/common/device_generate.cuh"
#include "kernels/common/host_device.hpp"
#include "kernels/common/uniform.hpp"

namespace bb {

/// uniform_at as a generator for generate_device, converted to T.
template <class T> struct uniform_values {
  std::uint64_t seed;
  BB_HD T operator()(std::uint64_t i) const { return static_cast<T>(host::uniform_at(seed, i)); }
};

/// Fills out[0, count) on the default stream and waits, so a failure shows at set-up, not in a launch.
template <class T> void fill_uniform_device(T* out, std::size_t count, std::uint64_t seed, std::uint64_t first = 0) {
  generate_device(out, count, uniform_values<T>{seed}, first);
}

} // namespace bb
