#pragma once
// Padding family: a batch of 32 x cols tiles of one element type, transposed through a shared
// tile[32][pitch] (pitch - cols elements of padding per row), one block per tile. The measured
// access is the column: column_read reads it (lane = row) after rows were written, column_write
// writes it before rows are read. Which banks a column hits depends on the row pitch in bytes.
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <cuda_runtime.h>

#include "kernels/common/params.hpp"
#include "kernels/common/in_out_problem.cuh"
#include "kernels/common/device_buffer.cuh"
#include "kernels/common/device_check.cuh"
#include "kernels/common/device_generate.cuh"
#include "kernels/common/host_device.hpp"
#include "kernels/common/seeded.hpp"
#include "kernels/padding/kernel.cuh"
#include "runner/launch/cuda_call.hpp"
#include "runner/registry/registry.hpp"

namespace bb::padding {

inline constexpr int k_max_smem_bytes = 48 * 1024; // dynamic shared memory without an opt-in
inline constexpr std::uint64_t k_max_input_bytes = 1ull << 30;

inline const family_info& family() {
  static const family_info f{
      "padding",
      "column access to tile[32][pitch] of char, short, float, double, float4 or a 12-byte struct, "
      "for each row pitch (padding = pitch - cols)",
      {{"type", "float", "element type: char, short, float, double, float4 or struct12 (struct {float a, b, c})"},
       {"cols", 32, "columns of the tile that hold data (a column read is one element from each of 32 rows)"},
       {"pitch", 32, "elements per row of the shared tile, at least cols; pitch - cols is the padding"},
       {"batch", 1024, "tiles in the batch, one block each"}}};
  return f;
}

/// What the kernel's accesses to one element look like, per element type.
struct element_info {
  const char* name;   ///< the `type` parameter's value
  const char* c_name; ///< as declared, for the tile's name
  int bytes;          ///< sizeof the element
  int access_bytes;   ///< width of each shared-memory instruction on it
  int accesses;       ///< instructions per element: struct12 moves as three 4-byte words
};

inline constexpr element_info k_elements[] = {
    {"char", "char", 1, 1, 1},     {"short", "short", 2, 2, 1},     {"float", "float", 4, 4, 1},
    {"double", "double", 8, 8, 1}, {"float4", "float4", 16, 16, 1}, {"struct12", "struct{float a,b,c}", 12, 4, 3},
};

struct config {
  element_info element{};
  tile_shape shape;
  std::int64_t tiles = 0;
};

/// The parameters of a configuration; unsupported_parameter outside what the kernel handles.
inline config checked_config(const nlohmann::json& params) {
  config c;
  const auto type = param::text(params, "type");
  bool found = false;
  for (const auto& e : k_elements)
    if (type == e.name) {
      c.element = e;
      found = true;
    }
  if (!found)
    throw unsupported_parameter("type = '" + type + "' is not one of char, short, float, double, float4, struct12");
  const auto cols = param::integer(params, "cols");
  const auto pitch = param::integer(params, "pitch");
  if (cols < 1 || pitch < cols)
    throw unsupported_parameter("cols = " + std::to_string(cols) + ", pitch = " + std::to_string(pitch) +
                                ": need 1 <= cols <= pitch");
  if (pitch * k_rows * c.element.bytes > k_max_smem_bytes)
    throw unsupported_parameter("tile " + std::string(c.element.c_name) + "[32][" + std::to_string(pitch) +
                                "] needs more than 48 KiB of shared memory");
  c.shape = {static_cast<int>(cols), static_cast<int>(pitch)};
  const std::uint64_t tile_bytes = static_cast<std::uint64_t>(c.shape.elements()) * c.element.bytes;
  c.tiles = param::in_range(params, "batch", 1, static_cast<std::int64_t>(k_max_input_bytes / tile_bytes),
                            (std::to_string(k_max_input_bytes / tile_bytes) + " (1 GiB of input)").c_str());
  return c;
}

/// Seeded input element i, which never holds the poison pattern (all bytes 0xff), so an unwritten
/// element fails. Written on the GPU, where the check calls it too.
template <class T> struct input_elements {
  std::uint64_t seed;
  BB_HD T operator()(std::uint64_t i) const {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(host::chunked_bits_at(seed, i, 16) & (static_cast<T>(~T{0}) >> 1));
    } else if constexpr (std::is_same_v<T, double>) {
      return static_cast<double>(host::uniform_at(seed, i)) / 3.0; // all 53 bits in use
    } else if constexpr (std::is_same_v<T, float>) {
      return host::uniform_at(seed, i);
    } else if constexpr (std::is_same_v<T, float4>) { // whole numbers of floats in a row
      return make_float4(host::uniform_at(seed, 4 * i), host::uniform_at(seed, 4 * i + 1),
                         host::uniform_at(seed, 4 * i + 2), host::uniform_at(seed, 4 * i + 3));
    } else {
      return T{host::uniform_at(seed, 3 * i), host::uniform_at(seed, 3 * i + 1), host::uniform_at(seed, 3 * i + 2)};
    }
  }
};

template <class T> std::string show(const T& v) {
  if constexpr (std::is_integral_v<T>)
    return std::to_string(static_cast<int>(v));
  else if constexpr (std::is_floating_point_v<T>)
    return std::to_string(v);
  else if constexpr (std::is_same_v<T, float4>)
    return "(" + std::to_string(v.x) + ", " + std::to_string(v.y) + ", " + std::to_string(v.z) + ", " +
           std::to_string(v.w) + ")";
  else
    return "(" + std::to_string(v.a) + ", " + std::to_string(v.b) + ", " + std::to_string(v.c) + ")";
}

/// Output i of a batch of 32 x cols tiles transposed in direction D; host or device.
template <class T, direction D> struct tile_transposed {
  input_elements<T> input;
  std::size_t cols;
  BB_HD std::size_t per_tile() const { return k_rows * cols; }
  BB_HD T expected(std::size_t i) const {
    const std::size_t t = i / per_tile(), e = i % per_tile();
    // column_read: output e = c * 32 + r holds input r * cols + c; column_write the other way round.
    const std::size_t source = D == direction::column_read ? (e % k_rows) * cols + e / k_rows
                                                           : (e % cols) * k_rows + e / cols;
    return input(t * per_tile() + source);
  }
  BB_HD bool operator()(std::size_t i, const T& got) const { return same_bytes(got, expected(i)); }
};

/// Buffers, seeded inputs, launch and the check for one element type and direction.
template <class T, direction D> class padding_problem final : public in_out_problem<T> {
  using base = in_out_problem<T>;
  using base::m_in;
  using base::m_out;

public:
  explicit padding_problem(const config& c, std::uint64_t seed)
      : base(elements(c), elements(c)), m_config(c), m_input{seed} {
    generate_device(m_in.get(), m_in.size(), m_input);
  }

  void launch(void* stream) override {
    const auto smem = static_cast<std::size_t>(k_rows) * m_config.shape.pitch * sizeof(T);
    padding_kernel<T, D><<<static_cast<unsigned>(m_config.tiles), k_block, smem, static_cast<cudaStream_t>(stream)>>>(
        m_in.get(), m_out.get(), m_config.shape);
    BB_CUDA_CALL(cudaGetLastError());
  }

  /// Bit-exact, it is a copy. column_read: out (cols x 32) = in (32 x cols) transposed, per tile;
  /// column_write: out (32 x cols) = in (cols x 32) transposed. Checked on the GPU.
  verify_result verify() override {
    const tile_transposed<T, D> want{m_input, static_cast<std::size_t>(m_config.shape.cols)};
    return verify_on_device(m_out.get(), m_out.size(), want, [&](std::size_t i, const T& got) {
      return "out[" + std::to_string(i) + "] (tile " + std::to_string(i / want.per_tile()) + ") = " + show(got) +
             ", expected " + show(want.expected(i));
    });
  }

  [[nodiscard]] int smem_access_bytes() const override { return m_config.element.access_bytes; }

private:
  static std::size_t elements(const config& c) {
    return static_cast<std::size_t>(c.tiles) * static_cast<std::size_t>(c.shape.elements());
  }

  config m_config;
  input_elements<T> m_input;
};

template <direction D> problem_factory factory() {
  return [](const nlohmann::json& params, std::uint64_t seed) -> std::unique_ptr<problem> {
    const config c = checked_config(params);
    const std::string type = c.element.name;
    if (type == "char") return std::make_unique<padding_problem<std::uint8_t, D>>(c, seed);
    if (type == "short") return std::make_unique<padding_problem<std::uint16_t, D>>(c, seed);
    if (type == "float") return std::make_unique<padding_problem<float, D>>(c, seed);
    if (type == "double") return std::make_unique<padding_problem<double, D>>(c, seed);
    if (type == "float4") return std::make_unique<padding_problem<float4, D>>(c, seed);
    return std::make_unique<padding_problem<float3_abc, D>>(c, seed);
  };
}

/// padding_kernel's shared-memory requests, from the same tile_shape::offset and loops: one tile
/// is built (row phase: 32 consecutive elements per warp; column phase: lane = row) and counted
/// `tiles` times. A struct12 element is three 4-byte requests, at +0, +4 and +8 bytes.
template <direction D> model::access_plan shared_access_plan(const nlohmann::json& params) {
  const config c = checked_config(params);
  const tile_shape s = c.shape;
  const auto tiles = static_cast<std::uint64_t>(c.tiles);
  const auto bytes = static_cast<std::uint32_t>(c.element.bytes);
  const model::access_kind row_kind = D == direction::column_read ? model::access_kind::store
                                                                  : model::access_kind::load;
  const model::access_kind column_kind = D == direction::column_read ? model::access_kind::load
                                                                     : model::access_kind::store;
  model::access_plan plan;
  plan.access_bytes = c.element.access_bytes;
  auto add = [&](model::access_kind kind, auto element_of_lane) { // element_of_lane(lane) -> element offset
    for (int k = 0; k < c.element.accesses; ++k) {
      model::warp_access a;
      a.kind = kind;
      a.width = c.element.access_bytes;
      for (int lane = 0; lane < 32; ++lane)
        a.address[static_cast<std::size_t>(lane)] = static_cast<std::uint32_t>(element_of_lane(lane)) * bytes +
                                                    static_cast<std::uint32_t>(k * c.element.access_bytes);
      plan.add(tiles, a);
    }
  };
  // Row phase: thread tid handles elements tid, tid + 256, ...; 32 * cols is a multiple of 32, so
  // a warp's lanes are all in range or all out (then it issues nothing).
  for (int first = 0; first < s.elements(); first += 32)
    add(row_kind, [&](int lane) { return s.offset((first + lane) / s.cols, (first + lane) % s.cols); });
  for (int col = 0; col < s.cols; ++col) add(column_kind, [&](int lane) { return s.offset(lane, col); });
  plan.tile = model::make_tile_layout(std::string(c.element.c_name) + " tile", k_rows, s.cols, c.element.bytes, s.pitch,
                                      [&](int r, int col) { return s.offset(r, col); });
  return plan;
}

} // namespace bb::padding
