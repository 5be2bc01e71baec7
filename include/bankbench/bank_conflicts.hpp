#pragma once
/// bankbench/bank_conflicts.hpp: compile-time shared-memory bank conflicts for your own CUDA code.
///
/// Include it in .cu or .cpp files (C++17, no other dependency) and check a tile layout where
/// you declare it:
///
///     constexpr int k_cols = 32, k_pad = 1;
///     __shared__ float tile[32][k_cols + k_pad];
///     static_assert(bankbench::column_conflict_free<float>(k_cols, k_pad), "column reads conflict");
///
/// Rules (bankbench's bank model, rules v2, measured on an H200; docs/bank-model.md): 32 banks of
/// 4-byte words, byte A in bank (A / 4) % 32; lanes that want the same word share it; 8-byte
/// accesses are served per half-warp and 16-byte ones per quarter-warp, except loads in which
/// every lane pair (2i, 2i + 1) reads one address (here: a broadcast, stride 0), which are served
/// in groups twice as wide; a group of lanes takes as many wavefronts as the busiest bank has
/// distinct words. The functions answer for loads (a broadcast store of 8 or 16 bytes takes one
/// wavefront per half- or quarter-warp). The tile is
/// assumed to start at a multiple of 128 bytes (true for a __shared__ array declared alone or
/// first; check yours if you place tiles by hand).
///
/// The often-quoted test `(COLS + PAD) * sizeof(T) % 128 != 0` is not enough: float[32][34] passes
/// it (136 B rows) and is 2-way, because lanes i and i + 16 land in the same bank. For 4-byte
/// elements the degree of a column read is gcd(words per row, 32), so only an odd number of words
/// per row is conflict-free; these functions work it out for any element size, padding and lanes.

#if defined(__CUDACC__)
#define BANKBENCH_HD __host__ __device__
#else
#define BANKBENCH_HD
#endif

namespace bankbench {

inline constexpr int warp_lanes = 32;
inline constexpr int banks = 32;
inline constexpr int bank_bytes = 4;

/// Lanes served as one group for an access of `width` bytes: 32, or 16 for 8 B, 8 for 16 B.
BANKBENCH_HD constexpr int lanes_per_phase(int width) { return width <= 4 ? warp_lanes : banks * bank_bytes / width; }

namespace detail {

struct cost {
  int wavefronts = 0;
  int degree = 0; ///< the most distinct words one bank serves in one phase
};

/// Lane l (0 <= l < lanes) accesses `width` bytes at `offset + l * stride` bytes.
BANKBENCH_HD constexpr cost strided(long long stride, int width, int lanes, long long offset) {
  cost c;
  if (!(width == 1 || width == 2 || width == 4 || width == 8 || width == 16) || lanes < 1 || lanes > warp_lanes)
    return {-1, -1};
  // Lanes at one stride share an address pairwise only when the stride is 0.
  const int group = stride == 0 && width > bank_bytes ? 2 * lanes_per_phase(width) : lanes_per_phase(width);
  const int words_per_lane = width > bank_bytes ? width / bank_bytes : 1;
  for (int first = 0; first < lanes; first += group) {
    long long word[warp_lanes] = {};
    int n = 0;
    for (int lane = first; lane < first + group && lane < lanes; ++lane)
      for (int k = 0; k < words_per_lane; ++k) {
        const long long w = (offset + lane * stride) / bank_bytes + k;
        bool seen = false;
        for (int i = 0; i < n; ++i) seen = seen || word[i] == w;
        if (!seen) word[n++] = w;
      }
    int most = 0;
    for (int b = 0; b < banks; ++b) {
      int in_bank = 0;
      for (int i = 0; i < n; ++i) in_bank += ((word[i] % banks + banks) % banks) == b ? 1 : 0;
      most = in_bank > most ? in_bank : most;
    }
    c.wavefronts += most;
    c.degree = most > c.degree ? most : c.degree;
  }
  return c;
}

} // namespace detail

/// Wavefronts for one warp request where lane l accesses `width` bytes at `offset_bytes + l *
/// stride_bytes` (lanes 0..lanes-1 active). -1 for a width other than 1, 2, 4, 8 or 16.
BANKBENCH_HD constexpr int strided_wavefronts(long long stride_bytes, int width, int lanes = warp_lanes,
                                              long long offset_bytes = 0) {
  return detail::strided(stride_bytes, width, lanes, offset_bytes).wavefronts;
}

/// Conflict degree ("N-way") of the same request: 1 is conflict-free.
BANKBENCH_HD constexpr int strided_conflict_degree(long long stride_bytes, int width, int lanes = warp_lanes,
                                                   long long offset_bytes = 0) {
  return detail::strided(stride_bytes, width, lanes, offset_bytes).degree;
}

/// Wavefronts a perfect request of this width needs when its lanes read distinct addresses:
/// ceil(lanes * width / 128), at least 1 (one per half- or quarter-warp with an active lane).
BANKBENCH_HD constexpr int ideal_wavefronts(int width, int lanes = warp_lanes) {
  const int w = (lanes * width + banks * bank_bytes - 1) / (banks * bank_bytes);
  return w < 1 ? 1 : w;
}

/// Conflict degree when lane l reads element (l, col) of a row-major tile whose rows hold
/// `cols + pad` elements of `element_bytes` bytes each.
BANKBENCH_HD constexpr int column_conflict_degree(int cols, int element_bytes, int pad = 0, int lanes = warp_lanes,
                                                  int col = 0) {
  return strided_conflict_degree(static_cast<long long>(cols + pad) * element_bytes, element_bytes, lanes,
                                 static_cast<long long>(col) * element_bytes);
}

/// Wavefronts of that column read.
BANKBENCH_HD constexpr int column_wavefronts(int cols, int element_bytes, int pad = 0, int lanes = warp_lanes,
                                             int col = 0) {
  return strided_wavefronts(static_cast<long long>(cols + pad) * element_bytes, element_bytes, lanes,
                            static_cast<long long>(col) * element_bytes);
}

/// The same for an element type: column_conflict_degree<float>(32, 1) == 1.
template <class T> BANKBENCH_HD constexpr int column_conflict_degree(int cols, int pad = 0, int lanes = warp_lanes) {
  return column_conflict_degree(cols, static_cast<int>(sizeof(T)), pad, lanes);
}

template <class T> BANKBENCH_HD constexpr int column_wavefronts(int cols, int pad = 0, int lanes = warp_lanes) {
  return column_wavefronts(cols, static_cast<int>(sizeof(T)), pad, lanes);
}

/// True when reading a column of T tile[..][cols + pad] takes the ideal number of wavefronts.
template <class T> BANKBENCH_HD constexpr bool column_conflict_free(int cols, int pad = 0, int lanes = warp_lanes) {
  return column_conflict_degree<T>(cols, pad, lanes) == 1;
}

/// The smallest padding (elements per row, 0..32) that makes column reads of T tile[..][cols + pad]
/// conflict-free; -1 when none does (e.g. an element size the hardware cannot access in one go).
template <class T> BANKBENCH_HD constexpr int smallest_conflict_free_pad(int cols, int lanes = warp_lanes) {
  for (int pad = 0; pad <= 32; ++pad)
    if (column_conflict_free<T>(cols, pad, lanes)) return pad;
  return -1;
}

/// CuTe's Swizzle<B, M, S> on a byte offset: bits [M, M + B) XOR bits [M + S, M + S + B).
/// Swizzle<3,4,3> is TMA's 128B swizzle (16-byte chunk XOR row mod 8), <2,4,3> 64B, <1,4,3> 32B.
BANKBENCH_HD constexpr long long cute_swizzle(long long offset, int b, int m, int s) {
  const long long high = ((1LL << b) - 1) << (m + s);
  return offset ^ ((offset & high) >> s);
}

/// Wavefronts of one ldmatrix/stmatrix .xN (N = matrices: 1, 2 or 4) whose lane l points at row
/// `first_row + l` of a tile with `row_pitch_bytes` bytes per row, at byte `col_bytes` of the
/// row (a multiple of 16), each byte offset passed through Swizzle<b, m, s> (b = 0: none). Each
/// matrix's 8 row addresses of 16 bytes are one phase: the ideal is N. -1 for N not 1, 2 or 4.
BANKBENCH_HD constexpr int ldmatrix_wavefronts(long long row_pitch_bytes, int matrices = 4, long long col_bytes = 0,
                                               int b = 0, int m = 0, int s = 0, int first_row = 0) {
  if (matrices != 1 && matrices != 2 && matrices != 4) return -1;
  int total = 0;
  for (int mat = 0; mat < matrices; ++mat) {
    long long unit[8] = {};
    int most = 0;
    for (int r = 0; r < 8; ++r) {
      const long long byte = (first_row + 8 * mat + r) * row_pitch_bytes + col_bytes;
      unit[r] = (b == 0 ? byte : cute_swizzle(byte, b, m, s)) / 16; // 16-byte units, 8 to a line
    }
    for (int g = 0; g < 8; ++g) {
      int distinct = 0;
      for (int r = 0; r < 8; ++r) {
        if (unit[r] % 8 != g) continue;
        bool seen = false;
        for (int q = 0; q < r; ++q) seen = seen || unit[q] == unit[r];
        distinct += seen ? 0 : 1;
      }
      most = distinct > most ? distinct : most;
    }
    total += most;
  }
  return total;
}

/// True when every ldmatrix .xN over 8N consecutive rows at every 16-byte column of a row of
/// `row_bytes` data bytes (a multiple of 16) takes N wavefronts.
BANKBENCH_HD constexpr bool ldmatrix_conflict_free(long long row_pitch_bytes, long long row_bytes, int matrices = 4,
                                                   int b = 0, int m = 0, int s = 0) {
  for (long long col = 0; col < row_bytes; col += 16)
    for (int first = 0; first < 8; first += 1)
      if (ldmatrix_wavefronts(row_pitch_bytes, matrices, col, b, m, s, first * 8 * matrices) != matrices) return false;
  return true;
}

} // namespace bankbench

#undef BANKBENCH_HD
