#pragma once
// The bankmap both its table's tests (test_model_bankmap.cpp) and its picture's tests
// (test_render_bankmap_svg.cpp) draw: one column of a float tile of 32 columns.
#include "runner/model/bankmap.hpp"
#include "runner/model/tile.hpp"

namespace bb_test {

/// Column `col` of a `rows` x 32 float tile whose rows are padded by `pad` elements.
inline bb::model::bankmap column_of(int pad, int col, int rows = 32) {
  using namespace bb::model;
  bankmap m;
  m.tile = make_tile({rows, 32, 4, "float", pad, 0});
  const access_pattern p{access_pattern::along::column, col};
  m.access = make_access(*m.tile, p);
  m.title = describe(p) + " of " + m.tile->name;
  return m;
}

} // namespace bb_test
