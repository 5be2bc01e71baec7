#include "runner/model/tile.hpp"

#include "runner/model/matrix_access.hpp"

#include <stdexcept>

namespace bb::model {

namespace {
[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument(what); }
bool power_of_two(int x) { return x > 0 && (x & (x - 1)) == 0; }
} // namespace

tile_layout make_tile(const tile_shape& s) {
  if (s.rows < 1 || s.cols < 1 || s.rows > 1024 || s.cols > 1024)
    bad("the tile must have 1..1024 rows and columns, not " + std::to_string(s.rows) + " x " + std::to_string(s.cols));
  if (!valid_width(s.element_bytes))
    bad("an element of " + std::to_string(s.element_bytes) +
        " B is not one shared-memory access (1, 2, 4, 8 or 16 B); for a struct, pick one field's width and "
        "use --stride for its spacing");
  if (s.pad < 0 || s.pad > 1024) bad("--pad must be 0..1024 elements");
  if (s.swizzle != 0 && (!power_of_two(s.swizzle) || s.cols % s.swizzle != 0))
    bad("--swizzle must be a power of two that divides the columns (" + std::to_string(s.cols) + "), not " +
        std::to_string(s.swizzle));
  if (s.cute_b != 0 && s.swizzle != 0) bad("use --swizzle or --cute-swizzle, not both");
  if (s.cute_b < 0 || s.cute_b > 5 || s.cute_m < 0 || s.cute_m > 10 || s.cute_s < s.cute_b || s.cute_s > 10)
    bad("--cute-swizzle B,M,S needs 0 <= B <= 5, 0 <= M <= 10 and B <= S <= 10 (e.g. 3,4,3)");
  tile_layout t;
  t.rows = s.rows;
  t.cols = s.cols;
  t.element_bytes = s.element_bytes;
  t.row_pitch_elements = s.cols + s.pad;
  t.name = s.type_name + " tile[" + std::to_string(s.rows) + "][" + std::to_string(t.row_pitch_elements) + "]";
  if (s.swizzle != 0) t.name += ", column ^ (row % " + std::to_string(s.swizzle) + ")";
  if (s.cute_b != 0)
    t.name += ", Swizzle<" + std::to_string(s.cute_b) + "," + std::to_string(s.cute_m) + "," +
              std::to_string(s.cute_s) + ">";
  if (static_cast<long long>(s.rows) * t.row_pitch_elements * s.element_bytes > (1ll << 20))
    bad("the tile is larger than 1 MiB of shared memory");
  t.address.reserve(static_cast<std::size_t>(s.rows) * static_cast<std::size_t>(s.cols));
  for (int r = 0; r < s.rows; ++r)
    for (int c = 0; c < s.cols; ++c) {
      const int col = s.swizzle != 0 ? c ^ (r % s.swizzle) : c;
      const auto byte = static_cast<std::uint32_t>((r * t.row_pitch_elements + col) * s.element_bytes);
      t.address.push_back(s.cute_b != 0 ? cute_swizzle(byte, s.cute_b, s.cute_m, s.cute_s) : byte);
    }
  return t;
}

warp_access make_access(const tile_layout& t, const access_pattern& p) {
  if (p.lanes < 1 || p.lanes > k_warp_lanes) bad("--lanes must be 1..32");
  const auto n = static_cast<long long>(t.rows) * t.cols;
  switch (p.kind) {
  case access_pattern::along::row:
    if (p.index < 0 || p.index >= t.rows) bad("--row must be 0.." + std::to_string(t.rows - 1));
    break;
  case access_pattern::along::column:
    if (p.index < 0 || p.index >= t.cols) bad("--col must be 0.." + std::to_string(t.cols - 1));
    break;
  case access_pattern::along::stride:
    if (p.index < 0) bad("--stride must be 0 or more (0: every lane reads element 0, a broadcast)");
    break;
  }
  warp_access a;
  a.width = t.element_bytes;
  a.kind = p.direction;
  a.active = 0;
  for (int lane = 0; lane < p.lanes; ++lane) {
    long long element = 0;
    if (p.kind == access_pattern::along::row)
      element = lane < t.cols ? static_cast<long long>(p.index) * t.cols + lane : -1;
    if (p.kind == access_pattern::along::column)
      element = lane < t.rows ? static_cast<long long>(lane) * t.cols + p.index : -1;
    if (p.kind == access_pattern::along::stride) element = static_cast<long long>(lane) * p.index;
    if (element < 0 || element >= n) continue; // past the tile: the lane sits this one out
    a.address[static_cast<std::size_t>(lane)] = t.address[static_cast<std::size_t>(element)];
    a.active |= 1u << lane;
  }
  return a;
}

std::string describe(const access_pattern& p) {
  const char* what = p.kind == access_pattern::along::row      ? "row "
                     : p.kind == access_pattern::along::column ? "column "
                                                               : "stride ";
  return what + std::to_string(p.index);
}

} // namespace bb::model
