#pragma once
/// Tiles people draw by hand: rows x cols elements, row-major, each row padded, optionally
/// XOR-swizzled; and the warp requests that read a row, a column or a strided run of one.
#include <string>

#include "runner/model/access_plan.hpp"

namespace bb::model {

struct tile_shape {
  int rows = 32, cols = 32;
  int element_bytes = 4;
  std::string type_name = "float"; ///< for titles: char, short, float, double, float4, "8-byte"
  int pad = 0;                     ///< elements of padding after each row
  int swizzle = 0;                 ///< 0: none; S: element (r, c) is stored at column c ^ (r mod S) (S a power of 2)
  /// CuTe Swizzle<B, M, S> on each element's byte offset (after padding); b = 0: none.
  /// <3,4,3> is TMA's 128B swizzle, <2,4,3> its 64B, <1,4,3> its 32B.
  int cute_b = 0, cute_m = 0, cute_s = 0;
};

/// Addresses of every element; the tile starts at byte 0 (bank 0). Throws std::invalid_argument
/// for an impossible shape (the message names the option and what would work).
tile_layout make_tile(const tile_shape& s);

struct access_pattern {
  enum class along { row, column, stride } kind = along::column;
  int index = 0;  ///< the row or column; for stride, the step in elements (lane l reads element l*S)
  int lanes = 32; ///< lanes 0..lanes-1 take part; lanes past the tile's end are inactive too
  access_kind direction = access_kind::load;
};

/// The request one warp makes for `p` on `tile`: row R (lane l reads (R, l)), column C (lane l
/// reads (l, C)) or stride S (lane l reads the (l*S)-th element in row-major order).
warp_access make_access(const tile_layout& tile, const access_pattern& p);

/// "column 3", "row 0", "stride 2"
std::string describe(const access_pattern& p);

} // namespace bb::model
