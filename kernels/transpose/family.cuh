#pragma once
// Transpose family: out = in^T for an n x n float or double matrix, through one shared-memory
// tile of side 16, 32 or 64 per block. Variants differ in the tile layout (where element
// (row, col) of the tile lives) and, for padded_wide, in how threads move the tile.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <cuda_runtime.h>

#include "kernels/common/in_out_problem.cuh"
#include "kernels/common/device_buffer.cuh"
#include "kernels/common/device_check.cuh"
#include "kernels/common/device_fill.cuh"
#include "kernels/common/host_device.hpp"
#include "kernels/common/params.hpp"
#include "kernels/common/uniform.hpp"
#include "kernels/transpose/kernel.cuh"
#include "runner/launch/cuda_call.hpp"
#include "runner/registry/registry.hpp"

namespace bb::transpose {

inline constexpr int k_max_n = 46340; // n*n stays below 2^31, as the experiment files promise

inline const family_info& family() {
  static const family_info f{"transpose",
                             "n x n matrix transpose through a shared-memory tile, block (min(tile, 32), block_rows)",
                             {{"n", 1024, "matrix side, in elements (any positive size; edges are bounds-checked)"},
                              {"tile", 32, "tile side, in elements: 16, 32 or 64"},
                              {"block_rows", 8,
                               "threads along the tile's rows: the block is (min(tile, 32), block_rows); 8, 16 or 32, "
                               "at most tile"},
                              {"type", "float", "element type: float or double"}}};
  return f;
}

/// One configuration's parameters, checked.
struct config {
  int n = 0;
  int tile = 32;
  int block_rows = 8;
  bool is_double = false;
  [[nodiscard]] int element_bytes() const { return is_double ? 8 : 4; }
  [[nodiscard]] std::string block() const {
    return "block (" + std::to_string(block_cols(tile)) + ", " + std::to_string(block_rows) + ")";
  }
};

/// The family's default of `name`, for a caller (a test, bankmap) that leaves it out.
inline const param_default& default_of(const std::string& name) {
  for (const auto& spec : family().params)
    if (spec.name == name) return spec.default_value;
  throw std::logic_error("transpose has no parameter " + name);
}

/// params[name] as an integer, or the family's default where the caller leaves it out.
inline std::int64_t integer_or_default(const nlohmann::json& params, const char* name) {
  return param::has(params, name) ? param::integer(params, name) : default_of(name).integer();
}

/// params[name] as text, or the family's default where the caller leaves it out.
inline std::string text_or_default(const nlohmann::json& params, const char* name) {
  return param::has(params, name) ? param::text(params, name) : default_of(name).text();
}

/// The parameters of a configuration; unsupported_parameter where no transpose kernel handles them.
inline config checked_config(const nlohmann::json& params) {
  config c;
  const auto n = integer_or_default(params, "n");
  if (n <= 0 || n > k_max_n)
    throw unsupported_parameter("n = " + std::to_string(n) + " is outside 1.." + std::to_string(k_max_n));
  c.n = static_cast<int>(n);
  const auto tile = integer_or_default(params, "tile");
  if (tile != 16 && tile != 32 && tile != 64)
    throw unsupported_parameter("tile = " + std::to_string(tile) + " is not one of 16, 32, 64");
  c.tile = static_cast<int>(tile);
  const auto rows = integer_or_default(params, "block_rows");
  if (rows != 8 && rows != 16 && rows != 32)
    throw unsupported_parameter("block_rows = " + std::to_string(rows) + " is not one of 8, 16, 32");
  if (rows > tile)
    throw unsupported_parameter("block_rows = " + std::to_string(rows) + " exceeds the " + std::to_string(tile) +
                                "-row tile: use block_rows <= tile");
  c.block_rows = static_cast<int>(rows);
  const auto type = text_or_default(params, "type");
  if (type != "float" && type != "double")
    throw unsupported_parameter("type = '" + type + "' is not one of float, double");
  c.is_double = type == "double";
  return c;
}

/// Calls f(T{}, integral_constant<tile>, integral_constant<block_rows>) for the configuration's
/// compile-time shape; every kernel is instantiated for the 16 valid shapes and nothing else.
template <class F> auto with_shape(const config& c, F&& f) {
  using result = decltype(f(float{}, std::integral_constant<int, 32>{}, std::integral_constant<int, 8>{}));
  auto rows = [&](auto t, auto s) -> result {
    constexpr int S = decltype(s)::value;
    if (c.block_rows == 8) return f(t, s, std::integral_constant<int, 8>{});
    if (c.block_rows == 16) return f(t, s, std::integral_constant<int, 16>{});
    if constexpr (S >= 32) return f(t, s, std::integral_constant<int, 32>{});
    throw unsupported_parameter("block_rows = 32 exceeds the 16-row tile"); // checked_config refuses it first
  };
  auto tiles = [&](auto t) -> result {
    if (c.tile == 16) return rows(t, std::integral_constant<int, 16>{});
    if (c.tile == 32) return rows(t, std::integral_constant<int, 32>{});
    return rows(t, std::integral_constant<int, 64>{});
  };
  return c.is_double ? tiles(double{}) : tiles(float{});
}

/// Enqueues one transpose of an n x n matrix on a stream: a kernel instantiation, type-erased.
template <class T> using launcher = void (*)(const T* in, T* out, int n, cudaStream_t stream);

template <class Layout, class T, int S, int R> void launch_tiled(const T* in, T* out, int n, cudaStream_t stream) {
  const dim3 block(block_cols(S), R);
  const dim3 grid((n + S - 1) / S, (n + S - 1) / S);
  transpose_kernel<Layout, T, S, R><<<grid, block, 0, stream>>>(in, out, n);
}

/// Output element i = row * n + col of a transpose of in[i] = T(uniform_at(seed, i)): the input's
/// (col, row), the same bits on host and device.
template <class T> struct transposed_input {
  std::uint64_t seed;
  std::size_t n;
  BB_HD T expected(std::size_t i) const { return static_cast<T>(host::uniform_at(seed, (i % n) * n + i / n)); }
  BB_HD bool operator()(std::size_t i, const T& got) const { return same_bytes(got, expected(i)); }
};

/// Buffers, inputs generated on the GPU, launch and the check shared by every transpose variant.
/// in[i] = T(uniform_at(seed, i)); no host copy of the input or the output exists.
template <class T> class transpose_problem final : public in_out_problem<T> {
  using base = in_out_problem<T>;
  using base::m_in;
  using base::m_out;

public:
  transpose_problem(const config& c, std::uint64_t seed, launcher<T> launch)
      : base(elements(c), elements(c)), m_n(c.n), m_seed(seed), m_launch(launch) {
    fill_uniform_device(m_in.get(), m_in.size(), seed);
  }

  void launch(void* stream) override {
    m_launch(m_in.get(), m_out.get(), m_n, static_cast<cudaStream_t>(stream));
    BB_CUDA_CALL(cudaGetLastError());
  }

  // poison_output (in_out_problem): every byte 0xff, every float and double becomes a NaN.

  /// Bit-exact, it is a copy, checked on the GPU: out[row, col] must hold the bits of
  /// T(uniform_at(seed, col * n + row)).
  verify_result verify() override {
    const transposed_input<T> want{m_seed, static_cast<std::size_t>(m_n)};
    return verify_on_device(m_out.get(), m_out.size(), want, [&](std::size_t i, const T& got) {
      return "out[" + std::to_string(i / want.n) + "," + std::to_string(i % want.n) + "] = " + std::to_string(got) +
             ", expected " + std::to_string(want.expected(i));
    });
  }

  [[nodiscard]] int smem_access_bytes() const override { return sizeof(T); }

private:
  static std::size_t elements(const config& c) { return static_cast<std::size_t>(c.n) * static_cast<std::size_t>(c.n); }

  int m_n = 0;
  std::uint64_t m_seed = 0;
  launcher<T> m_launch;
};

/// How far the matrix reaches into a tile along one axis (S elements, or n mod S at the last
/// tile), and how many tiles along that axis have that extent. A tile's requests depend only on
/// its two extents, so plans build each pair once and count it for every tile that has it.
struct extent {
  int size;
  std::uint64_t tiles;
};

inline std::vector<extent> extents_of(int n, int tile) {
  std::vector<extent> out;
  if (n >= tile) out.push_back({tile, static_cast<std::uint64_t>(n / tile)});
  if (n % tile != 0) out.push_back({n % tile, 1});
  return out;
}

/// The tile a Layout describes, for bankmap's pictures: "double tile[64][65]".
template <class Layout, class T, int S> model::tile_layout tile_picture() {
  return model::make_tile_layout(std::string(std::is_same_v<T, double> ? "double" : "float") + " tile", S, S, sizeof(T),
                                 Layout::k_elements / S, [](int r, int c) { return Layout::offset(r, c); });
}

/// Where one lane's two shared accesses at one step of a kernel's loops go: the row-phase store
/// and the column-phase load, as element offsets into the tile, and whether the lane takes part.
struct lane_access {
  int store_offset;
  bool store_active;
  int load_offset;
  bool load_active;
};

/// Adds one warp's store and load requests at one step, `count` times; lane_of(lane) -> lane_access.
template <class T, class LaneOf> void add_step(model::access_plan& plan, std::uint64_t count, LaneOf lane_of) {
  constexpr auto bytes = static_cast<std::uint32_t>(sizeof(T));
  model::warp_access store, load;
  store.kind = model::access_kind::store;
  load.kind = model::access_kind::load;
  store.width = load.width = sizeof(T);
  store.active = load.active = 0;
  for (int lane = 0; lane < 32; ++lane) {
    const lane_access a = lane_of(lane);
    store.address[lane] = static_cast<std::uint32_t>(a.store_offset) * bytes;
    load.address[lane] = static_cast<std::uint32_t>(a.load_offset) * bytes;
    if (a.store_active) store.active |= 1u << lane;
    if (a.load_active) load.active |= 1u << lane;
  }
  plan.add(count, store);
  plan.add(count, load);
}

/// A plan over every pair of tile extents: steps(plan, ex, ey, count) adds one tile's requests.
template <class Layout, class T, int S, class Steps> model::access_plan plan_over_tiles(int n, Steps steps) {
  model::access_plan plan;
  plan.access_bytes = sizeof(T);
  const auto extents = extents_of(n, S);
  for (const extent& ex : extents)   // along blockIdx.x
    for (const extent& ey : extents) // along blockIdx.y
      steps(plan, ex, ey, ex.tiles * ey.tiles);
  plan.tile = tile_picture<Layout, T, S>();
  return plan;
}

/// transpose_kernel's shared-memory requests for the bank model, from its own Layout::offset,
/// loops and bounds checks. Thread (tx, ty) is lane (ty * block_cols + tx) % 32 of warp
/// (ty * block_cols + tx) / 32; each (j, i) iteration of a loop is one request per warp.
template <class Layout, class T, int S, int R> model::access_plan tiled_plan(int n) {
  constexpr int k_cols = block_cols(S);
  constexpr int k_warps = k_cols * R / 32;
  return plan_over_tiles<Layout, T, S>(n, [](model::access_plan& plan, extent ex, extent ey, std::uint64_t count) {
    for (int w = 0; w < k_warps; ++w)
      for (int j = 0; j < S; j += R)
        for (int i = 0; i < S; i += k_cols)
          add_step<T>(plan, count, [&](int lane) {
            const int tx = (w * 32 + lane) % k_cols, ty = (w * 32 + lane) / k_cols;
            // Store phase: x = bx*S + tx + i and y = by*S + ty + j inside the matrix; load phase:
            // x = by*S + tx + i and y = bx*S + ty + j.
            return lane_access{Layout::offset(ty + j, tx + i), tx + i < ex.size && ty + j < ey.size,
                               Layout::offset(tx + i, ty + j), tx + i < ey.size && ty + j < ex.size};
          });
  });
}

/// A tiled variant's factory for a layout template Layout<S>.
template <template <int> class Layout> problem_factory tiled_factory() {
  return [](const nlohmann::json& params, std::uint64_t seed) -> std::unique_ptr<problem> {
    const config c = checked_config(params);
    return with_shape(c, [&](auto t, auto s, auto r) -> std::unique_ptr<problem> {
      using T = decltype(t);
      constexpr int S = decltype(s)::value, R = decltype(r)::value;
      return std::make_unique<transpose_problem<T>>(c, seed, &launch_tiled<Layout<S>, T, S, R>);
    });
  };
}

/// A tiled variant's plan builder for a layout template Layout<S>.
template <template <int> class Layout> model::access_plan tiled_access_plan(const nlohmann::json& params) {
  const config c = checked_config(params);
  return with_shape(c, [&](auto t, auto s, auto r) {
    return tiled_plan<Layout<decltype(s)::value>, decltype(t), decltype(s)::value, decltype(r)::value>(c.n);
  });
}

} // namespace bb::transpose
