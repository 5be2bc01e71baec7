#include <gtest/gtest.h>

#include "runner/common/suggest.hpp"

TEST(common_suggest, edit_distance_counts_transpositions_once) {
  EXPECT_EQ(bb::edit_distance("", ""), 0u);
  EXPECT_EQ(bb::edit_distance("run", "run"), 0u);
  EXPECT_EQ(bb::edit_distance("rnu", "run"), 1u);
  EXPECT_EQ(bb::edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(bb::edit_distance("", "abc"), 3u);
}

TEST(common_suggest, suggests_only_close_candidates) {
  const std::vector<std::string> names{"run", "validate", "list", "show"};
  EXPECT_EQ(bb::did_you_mean("valdiate", names), "did you mean 'validate'?");
  EXPECT_EQ(bb::did_you_mean("shwo", names), "did you mean 'show'?");
  EXPECT_EQ(bb::did_you_mean("compile", names), "");
  EXPECT_EQ(bb::closest_match("lst", names), "list");
}
