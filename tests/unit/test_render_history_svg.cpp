// history --svg: one configuration's metric across runs, drawn.
#include <gtest/gtest.h>

#include <set>

#include "occurrences.hpp"
#include "../data/results/fixtures.hpp"
#include "../data/results/test_helpers.hpp"
#include "runner/query/history.hpp"
#include "runner/render/history_svg.hpp"

namespace {

using namespace bb::test::results;

using bb::test::occurrences;

TEST(render_history_svg, a_line_per_architecture_and_a_point_per_run) {
  temp_folder tmp;
  build_fixture(tmp.file("f.sqlite"));
  const auto db = bb::store::database::open_existing(tmp.file("f.sqlite"));
  bb::query::history_query q;
  q.variant = "padded";
  q.params = {{"n", "8192"}};
  const auto points = bb::query::metric_history(db, q);
  std::set<std::string> archs;
  for (const auto& p : points) archs.insert(p.run.arch);
  ASSERT_EQ(points.size(), 6U);
  ASSERT_EQ(archs.size(), 3U); // sm_90, sm_89 and the model
  const std::string svg = bb::render::history_svg(points, q);
  EXPECT_EQ(svg.rfind("<svg", 0), 0U);
  EXPECT_EQ(occurrences(svg, "class=\"line\""), archs.size());
  EXPECT_EQ(occurrences(svg, "class=\"point\""), points.size());
  EXPECT_NE(svg.find(bb::query::history_subject(points, q)), std::string::npos);
}

} // namespace
