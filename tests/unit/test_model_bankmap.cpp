// bankmap's table for one warp request (test_render_bankmap_svg.cpp: its picture).
#include <gtest/gtest.h>

#include <sstream>

#include "runner/model/bankmap.hpp"
#include "bankmap_test_util.hpp"
#include "runner/model/tile.hpp"

namespace {

using namespace bb::model;

using bb_test::column_of;

TEST(model_bankmap, verdicts) {
  EXPECT_EQ(verdict(evaluate(column_of(0, 0).access)), "32-way bank conflict: 32 wavefronts, ideal 1");
  EXPECT_EQ(verdict(evaluate(column_of(1, 0).access)), "conflict-free: 1 wavefront, ideal 1");
  EXPECT_EQ(verdict(evaluate(column_of(2, 0).access)), "2-way bank conflict: 2 wavefronts, ideal 1");
  EXPECT_EQ(verdict(access_cost{}), "no active lane: no request");
  EXPECT_EQ(bank_label(132, 4), "1");
  EXPECT_EQ(bank_label(8, 8), "2-3");
  EXPECT_EQ(bank_label(16, 16), "4-7");
}

TEST(model_bankmap, text_lists_each_lane_and_the_banks) {
  std::ostringstream out;
  write_text(column_of(1, 2, 4), out);
  EXPECT_EQ(out.str(),
            "column 2 of float tile[4][33]\n"
            "load, 4 B per lane, 4 active lanes\n"
            "\n"
            "lane   row   col   byte  bank\n"
            "   0     0     2      8     2\n"
            "   1     1     2    140     3\n"
            "   2     2     2    272     4\n"
            "   3     3     2    404     5\n"
            "\n"
            "banks, lanes 0-31:\n"
            "bank   0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31\n"
            "lanes  .  .  1  1  1  1  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .\n"
            "words  .  .  1  1  1  1  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .\n"
            "\n"
            "conflict-free: 1 wavefront, ideal 1\n");
}

} // namespace
