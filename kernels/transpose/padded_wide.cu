// The padded tile moved in 16-byte pieces: each thread loads and stores whole float4 (double2)
// vectors of the matrix, several in flight, while the tile[S][S + 1] keeps every shared access
// conflict-free because each warp takes 8 vectors along a row x 4 rows (4 x 65 words apart).
#include "kernels/transpose/family.cuh"
#include "kernels/transpose/padded_layout.cuh"

namespace bb::transpose {
namespace {

BB_HD inline void unpack(const float4& v, float* e) { e[0] = v.x, e[1] = v.y, e[2] = v.z, e[3] = v.w; }
BB_HD inline void unpack(const double2& v, double* e) { e[0] = v.x, e[1] = v.y; }
BB_HD inline float4 pack(const float* e) { return make_float4(e[0], e[1], e[2], e[3]); }
BB_HD inline double2 pack(const double* e) { return make_double2(e[0], e[1]); }

/// How a block of (block_cols(S), R) threads covers an S x S tile with 16-byte vectors. The tile
/// is cut into units of 4 rows x 8 vectors (32 vectors, one per lane: lane = 8 * row + vector);
/// warp w takes units w, w + warps, ... Row phase: unit u holds tile rows 4 * (u / blocks) + lane / 8,
/// vectors 8 * (u % blocks) + lane % 8. Column phase: the same unit of the output tile, whose row
/// is a tile column and whose vector is k_vec consecutive tile rows.
template <class T, int S, int R> struct wide_shape {
  using vec = std::conditional_t<std::is_same_v<T, double>, double2, float4>;
  static constexpr int k_vec = 16 / sizeof(T);   // elements per 16-byte vector
  static constexpr int k_blocks = S / k_vec / 8; // units side by side along a tile row
  static constexpr int k_units = (S / 4) * k_blocks;
  static constexpr int k_warps = block_cols(S) * R / 32;
  static constexpr int k_passes = k_units / k_warps;
  static constexpr bool k_valid = k_blocks >= 1 && k_passes >= 1 && k_passes * k_warps == k_units;
  BB_HD static constexpr int row(int unit, int lane) { return unit / k_blocks * 4 + lane / 8; }
  BB_HD static constexpr int first_col(int unit, int lane) { return (unit % k_blocks * 8 + lane % 8) * k_vec; }
};

/// Vector: n % k_vec == 0, so every row starts 16-byte aligned and a vector is wholly inside the
/// matrix or wholly outside. Otherwise each element is loaded and stored on its own (edges only
/// differ); the shared accesses are the same either way.
template <class T, int S, int R, bool Vector> __global__ void __launch_bounds__(block_cols(S) * R)
    wide_kernel(const T* __restrict__ in, T* __restrict__ out, int n) {
  using shape = wide_shape<T, S, R>;
  using layout = padded_layout<S>;
  constexpr int k_vec = shape::k_vec;
  __shared__ T tile[layout::k_elements];
  const int t = static_cast<int>(threadIdx.y * blockDim.x + threadIdx.x);
  const int lane = t % 32, warp = t / 32;
  const int bx = static_cast<int>(blockIdx.x) * S, by = static_cast<int>(blockIdx.y) * S;
  T v[shape::k_passes][k_vec];
#pragma unroll
  for (int p = 0; p < shape::k_passes; ++p) { // every load issued before the first shared store
    const int unit = warp + p * shape::k_warps;
    const int y = by + shape::row(unit, lane), x = bx + shape::first_col(unit, lane);
    if (y < n && x < n) {
      const T* src = in + static_cast<std::size_t>(y) * n + x;
      if constexpr (Vector) {
        unpack(*reinterpret_cast<const typename shape::vec*>(src), v[p]);
      } else {
#pragma unroll
        for (int e = 0; e < k_vec; ++e) v[p][e] = x + e < n ? src[e] : T(0);
      }
    }
  }
#pragma unroll
  for (int p = 0; p < shape::k_passes; ++p) {
    const int unit = warp + p * shape::k_warps;
    const int r = shape::row(unit, lane), c = shape::first_col(unit, lane);
    if (by + r < n && bx + c < n)
#pragma unroll
      for (int e = 0; e < k_vec; ++e) tile[layout::offset(r, c + e)] = v[p][e];
  }
  __syncthreads();
#pragma unroll
  for (int p = 0; p < shape::k_passes; ++p) {
    const int unit = warp + p * shape::k_warps;
    const int r = shape::row(unit, lane), c = shape::first_col(unit, lane); // output row, first output column
    if (bx + r < n && by + c < n)
#pragma unroll
      for (int e = 0; e < k_vec; ++e) v[p][e] = tile[layout::offset(c + e, r)];
  }
#pragma unroll
  for (int p = 0; p < shape::k_passes; ++p) {
    const int unit = warp + p * shape::k_warps;
    const int y = bx + shape::row(unit, lane), x = by + shape::first_col(unit, lane);
    if (y < n && x < n) {
      T* dst = out + static_cast<std::size_t>(y) * n + x;
      if constexpr (Vector) {
        *reinterpret_cast<typename shape::vec*>(dst) = pack(v[p]);
      } else {
#pragma unroll
        for (int e = 0; e < k_vec; ++e)
          if (x + e < n) dst[e] = v[p][e];
      }
    }
  }
}

template <class T, int S, int R> void launch_wide(const T* in, T* out, int n, cudaStream_t stream) {
  const dim3 block(block_cols(S), R);
  const dim3 grid((n + S - 1) / S, (n + S - 1) / S);
  if (n % wide_shape<T, S, R>::k_vec == 0)
    wide_kernel<T, S, R, true><<<grid, block, 0, stream>>>(in, out, n);
  else
    wide_kernel<T, S, R, false><<<grid, block, 0, stream>>>(in, out, n);
}

/// The shapes wide_kernel covers; unsupported_parameter for the rest.
void check_wide(const config& c) {
  const int vec = 16 / c.element_bytes();
  const int vectors = c.tile * c.tile / vec, threads = block_cols(c.tile) * c.block_rows;
  const std::string type = c.is_double ? "double" : "float";
  if (c.tile / vec < 8)
    throw unsupported_parameter("padded_wide needs 8 16-byte vectors per tile row; a " + type + " tile of " +
                                std::to_string(c.tile) + " has " + std::to_string(c.tile / vec) +
                                ": use tile >= " + std::to_string(8 * vec));
  if (threads > vectors)
    throw unsupported_parameter("padded_wide: " + c.block() + " has " + std::to_string(threads) + " threads for the " +
                                std::to_string(vectors) + " 16-byte vectors of a " + type + " tile of " +
                                std::to_string(c.tile) + ": use fewer block_rows or a larger tile");
}

/// wide_kernel's shared-memory requests: per pass, k_vec scalar stores (row phase) and k_vec scalar
/// loads (column phase) per warp, active where the vector's first element is inside the matrix.
template <class T, int S, int R> model::access_plan wide_plan(int n) {
  using shape = wide_shape<T, S, R>;
  using layout = padded_layout<S>;
  return plan_over_tiles<layout, T, S>(n, [](model::access_plan& plan, extent ex, extent ey, std::uint64_t count) {
    for (int w = 0; w < shape::k_warps; ++w)
      for (int p = 0; p < shape::k_passes; ++p)
        for (int e = 0; e < shape::k_vec; ++e)
          add_step<T>(plan, count, [&](int lane) {
            const int unit = w + p * shape::k_warps;
            const int r = shape::row(unit, lane), c = shape::first_col(unit, lane);
            return lane_access{layout::offset(r, c + e), r < ey.size && c < ex.size, layout::offset(c + e, r),
                               r < ex.size && c < ey.size};
          });
  });
}

problem_factory wide_factory() {
  return [](const nlohmann::json& params, std::uint64_t seed) -> std::unique_ptr<problem> {
    const config c = checked_config(params);
    check_wide(c);
    return with_shape(c, [&](auto t, auto s, auto r) -> std::unique_ptr<problem> {
      using T = decltype(t);
      constexpr int S = decltype(s)::value, R = decltype(r)::value;
      if constexpr (wide_shape<T, S, R>::k_valid)
        return std::make_unique<transpose_problem<T>>(c, seed, &launch_wide<T, S, R>);
      throw unsupported_parameter("padded_wide: no kernel for this shape"); // check_wide refuses it first
    });
  };
}

model::access_plan wide_access_plan(const nlohmann::json& params) {
  const config c = checked_config(params);
  check_wide(c);
  return with_shape(c, [&](auto t, auto s, auto r) -> model::access_plan {
    using T = decltype(t);
    constexpr int S = decltype(s)::value, R = decltype(r)::value;
    if constexpr (wide_shape<T, S, R>::k_valid) return wide_plan<T, S, R>(c.n);
    throw unsupported_parameter("padded_wide: no kernel for this shape");
  });
}

} // namespace

BB_REGISTER_VARIANT_WITH_PLAN(family(), "padded_wide",
                              "tile[S][S + 1], 16-byte global loads and stores (n % 4 == 0 float, even n "
                              "double; other n element by element), warps of 8 vectors x 4 rows: conflict-free",
                              wide_factory(), wide_access_plan);
} // namespace bb::transpose
