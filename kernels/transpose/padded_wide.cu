// The padded tile moved in 16-byte pieces: each thread loads and stores whole float4 (double2)
// vectors of the matrix, several in flight, while the tile[S][S + 1] keeps every shared access
// conflict-free because each warp takes 8 vectors along a row x 4 rows (4 x 65 words apart).
#include "kernels/transpose/family.cuh"
#include "kernels/transpose/padded_layout.cuh"

namespace bb::transpose {
namespace {

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
