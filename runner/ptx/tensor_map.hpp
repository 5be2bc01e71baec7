#pragma once
/// A TMA tensor map as the interpreter reads it: the 128 bytes a kernel takes as its
/// `const __grid_constant__ CUtensorMap` parameter hold, in a model run, this encoding (the driver's
/// own is opaque), so a `cp.async.bulk.tensor` that names the parameter finds the tensor's global
/// address, shape, strides, box and swizzle. No CUDA headers.
#include <array>
#include <cstdint>
#include <cstring>
#include <optional>

namespace bb::ptx {

struct tensor_map {
  static constexpr std::size_t k_bytes = 128; ///< sizeof(CUtensorMap)
  static constexpr int k_max_rank = 5;
  std::uint64_t global = 0;                        ///< the tensor's first byte
  std::uint32_t rank = 0;                          ///< 1 .. 5
  std::uint32_t element_bytes = 0;                 ///< 1, 2, 4 or 8
  std::array<std::uint64_t, k_max_rank> dims{};    ///< elements, innermost first
  std::array<std::uint64_t, k_max_rank> strides{}; ///< bytes between consecutive indices of dims 1..rank-1 (0 unused)
  std::array<std::uint32_t, k_max_rank> box{};     ///< elements a copy moves per dimension
  std::uint32_t swizzle_bits = 0;                  ///< 0 none, 1 32B, 2 64B, 3 128B (CU_TENSOR_MAP_SWIZZLE_*)

  [[nodiscard]] std::array<std::uint8_t, k_bytes> encode() const {
    std::array<std::uint8_t, k_bytes> out{};
    std::memcpy(out.data(), k_magic, 8);
    std::memcpy(out.data() + 8, &global, 8);
    std::memcpy(out.data() + 16, &rank, 4);
    std::memcpy(out.data() + 20, &element_bytes, 4);
    std::memcpy(out.data() + 24, dims.data(), 40);
    std::memcpy(out.data() + 64, strides.data() + 1, 32);
    std::memcpy(out.data() + 96, box.data(), 20);
    std::memcpy(out.data() + 116, &swizzle_bits, 4);
    return out;
  }
  /// nullopt where `bytes` is not a map encode() made.
  static std::optional<tensor_map> decode(const std::uint8_t* bytes) {
    if (std::memcmp(bytes, k_magic, 8) != 0) return std::nullopt;
    tensor_map m;
    std::memcpy(&m.global, bytes + 8, 8);
    std::memcpy(&m.rank, bytes + 16, 4);
    std::memcpy(&m.element_bytes, bytes + 20, 4);
    std::memcpy(m.dims.data(), bytes + 24, 40);
    std::memcpy(m.strides.data() + 1, bytes + 64, 32);
    std::memcpy(m.box.data(), bytes + 96, 20);
    std::memcpy(&m.swizzle_bits, bytes + 116, 4);
    if (m.rank < 1 || m.rank > k_max_rank || m.swizzle_bits > 3) return std::nullopt;
    return m;
  }

private:
  static constexpr char k_magic[9] = "bbTMAP\x01";
};

} // namespace bb::ptx
