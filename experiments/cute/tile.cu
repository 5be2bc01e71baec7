// A 32 x 64 half_t tile (128-byte rows) in shared memory, written through a CuTe layout with
// 16-byte stores and read back with ldmatrix.x4 (CuTe's SM75_U32x4_LDSM_N copy atom), then stored
// to global memory where each value came from: `out` equals `in` for every layout. The layout is
// the template argument: row_major, padded, swizzled (Swizzle<3,4,3> on byte addresses, as
// CUTLASS's 128-byte-swizzle atoms for 16-bit types) and swizzled_elements (the same swizzle
// composed with element offsets). ldmatrix.yaml works out the wavefronts of each.
#include <cute/tensor.hpp>

// After cute/tensor.hpp, which they build on.
#include <cute/atom/copy_atom.hpp>
#include <cute/atom/copy_traits_sm75.hpp>

using tile_extent = cute::Shape<cute::_32, cute::_64>;
using gmem_tile = cute::Layout<tile_extent, cute::Stride<cute::_64, cute::_1>>;

// Row r at byte 128 r: every row starts in bank 0.
struct row_major {
  static constexpr auto layout() { return gmem_tile{}; }
};

// Rows of 72 elements (144 bytes): row r starts in 16-byte bank group r mod 8.
struct padded {
  static constexpr auto layout() { return cute::Layout<tile_extent, cute::Stride<cute::_72, cute::_1>>{}; }
};

// The swizzle acts on byte addresses (smem_ptr_flag_bits<16>: the pointer to come holds 16-bit
// elements): 16-byte chunk k of row r lands at chunk k ^ (r mod 8).
struct swizzled {
  static constexpr auto layout() {
    return cute::composition(cute::Swizzle<3, 4, 3>{}, cute::smem_ptr_flag_bits<16>{}, gmem_tile{});
  }
};

// The same Swizzle<3,4,3> on element offsets: for 2-byte elements it XORs 32-byte chunks with bits
// of the 256-byte row pair (Swizzle<3,3,3> would be the element-offset form of the one above).
struct swizzled_elements {
  static constexpr auto layout() { return cute::composition(cute::Swizzle<3, 4, 3>{}, gmem_tile{}); }
};

template <class Tile> __global__ void __launch_bounds__(128) tile_roundtrip(const cute::half_t* in, cute::half_t* out) {
  using namespace cute;
  __shared__ alignas(1024) half_t smem[32 * 72];
  // A swizzle on the pointer becomes offsets on a plain shared pointer, so the stores stay STS
  // (a swizzle_ptr XORs a generic address and would make them generic ST).
  Tensor tile = as_position_independent_swizzle_tensor(make_tensor(make_smem_ptr(smem), Tile::layout()));
  Tensor g_in = make_tensor(make_gmem_ptr(in + blockIdx.x * size(gmem_tile{})), gmem_tile{});
  Tensor g_out = make_tensor(make_gmem_ptr(out + blockIdx.x * size(gmem_tile{})), gmem_tile{});
  // 16-byte chunks of 8 elements: ((1, 8), (32 rows, 8 chunks)).
  Tensor s_chunks = zipped_divide(tile, Shape<_1, _8>{});
  Tensor g_chunks = zipped_divide(g_in, Shape<_1, _8>{});
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;

  // Thread t stores chunk t % 8 of row t / 8 (and 16 rows on): a quarter-warp writes one row.
  for (int pass = 0; pass < 2; ++pass) {
    const int row = pass * 16 + t / 8, chunk = t % 8;
    copy(Copy_Atom<UniversalCopy<uint128_t>, half_t>{}, g_chunks(make_coord(0, _), make_coord(row, chunk)),
         s_chunks(make_coord(0, _), make_coord(row, chunk)));
  }
  __syncthreads();

  // Warp w reads rows 8w .. 8w + 7 with two ldmatrix.x4, each 4 matrices of 8 rows x 8 columns
  // side by side (columns 32h .. 32h + 31): lane l gives the address of row 8w + l % 8 of matrix l / 8.
  for (int h = 0; h < 2; ++h) {
    const int row = warp * 8 + lane % 8, chunk = h * 4 + lane / 8;
    Tensor frag = make_tensor<half_t>(Shape<_8>{});
    copy(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{}, s_chunks(make_coord(0, _), make_coord(row, chunk)), frag);
    // Register j holds row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1 of matrix j.
    for (int j = 0; j < 4; ++j)
      for (int e = 0; e < 2; ++e) g_out(warp * 8 + lane / 4, h * 32 + 8 * j + 2 * (lane % 4) + e) = frag(2 * j + e);
  }
}
