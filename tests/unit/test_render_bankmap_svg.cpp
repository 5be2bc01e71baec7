// bankmap's picture of one warp request.
#include <gtest/gtest.h>

#include <sstream>

#include "bankmap_test_util.hpp"
#include "runner/model/tile.hpp"
#include "runner/render/bankmap_svg.hpp"

namespace {

using namespace bb::model;
using bb::render::write_bankmap_svg;

using bb_test::column_of;

TEST(render_bankmap_svg, draws_the_grid_the_outlines_and_the_caption) {
  std::ostringstream out;
  write_bankmap_svg(column_of(1, 0), out);
  const std::string svg = out.str();
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_NE(svg.find("</svg>\n"), std::string::npos);
  EXPECT_NE(svg.find("column 0 of float tile[32][33]"), std::string::npos);
  EXPECT_NE(svg.find("conflict-free: 1 wavefront, ideal 1"), std::string::npos);
  auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (auto at = svg.find(what); at != std::string::npos; at = svg.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("fill=\"#e6e6e6\""), 32u);                               // one padding cell per row
  EXPECT_EQ(count(">L"), 32u);                                             // one lane label per outlined element
  EXPECT_EQ(count("font-weight=\"bold\" text-anchor=\"middle\">1<"), 32u); // one word in each bank
}

} // namespace
