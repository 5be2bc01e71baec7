#pragma once
/// The check of a kernel that copies its input out unchanged: out[i] holds the bits of
/// in[i] = uniform_at(seed, i).
#include <cstddef>
#include <cstdint>

#include "kernels/common/host_device.hpp"
#include "kernels/common/same_bytes.hpp"
#include "kernels/common/uniform.hpp"

namespace bb {

struct copied_input {
  std::uint64_t seed;
  BB_HD float expected(std::size_t i) const { return host::uniform_at(seed, i); }
  BB_HD bool operator()(std::size_t i, float got) const { return same_bytes(got, expected(i)); }
};

} // namespace bb
