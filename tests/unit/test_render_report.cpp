// report: one self-contained page, charts for every section, failures and regressions marked.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "occurrences.hpp"
#include "../data/results/fixtures.hpp"
#include "../data/results/test_helpers.hpp"
#include "runner/common/error.hpp"
#include "runner/render/report.hpp"

namespace {

using namespace bb::render;
using namespace bb::test::results;

using bb::test::occurrences;

TEST(render_report, page_is_self_contained_with_charts_and_highlights) {
  temp_folder tmp;
  build_fixture(tmp.file("f.sqlite"));
  const auto db = bb::store::database::open_existing(tmp.file("f.sqlite"));
  std::ostringstream out;
  report_options o;
  o.generated_at = "now";
  const auto summary = write_report(db, o, out);
  const std::string html = out.str();
  EXPECT_EQ(summary.experiments, 1);
  EXPECT_EQ(summary.failed_expectations, 2);
  EXPECT_EQ(summary.regressions, 1); // run 6 against run 5: swizzled n=4096 wavefronts per request
  EXPECT_EQ(occurrences(html, "<svg "), static_cast<std::size_t>(summary.charts));
  EXPECT_GE(summary.charts, 8);
  // n is the one parameter that varies: a line per variant over it, not bars.
  for (const char* chart : {"ld wf/req against n", "median us against n", "GB/s against n", "ld wf/req across GPUs",
                            "measured against predicted wavefronts per request"})
    EXPECT_NE(html.find(chart), std::string::npos) << chart;
  // Offline: no script, nothing fetched; the only URL is the SVG namespace.
  EXPECT_EQ(html.find("<script"), std::string::npos);
  const std::regex url(R"(https?://[^"' )]+)");
  for (std::sregex_iterator it(html.begin(), html.end(), url), end; it != end; ++it)
    EXPECT_EQ(it->str(), "http://www.w3.org/2000/svg");
  EXPECT_EQ(occurrences(html, "<tr class=\"bad\">"), 2U + 1U);
  // the two failed expectations are ringed where their values are drawn
  EXPECT_GE(occurrences(html, "class=\"flag\""), 2U);
  EXPECT_NE(html.find("a red ring marks a failed expectation"), std::string::npos);
  EXPECT_NE(html.find("1 regression"), std::string::npos);
}

TEST(render_report, an_unknown_experiment_is_refused) {
  temp_folder tmp;
  build_fixture(tmp.file("f.sqlite"));
  const auto db = bb::store::database::open_existing(tmp.file("f.sqlite"));
  std::ostringstream out;
  report_options o;
  o.experiments = {"reduce"};
  EXPECT_THROW(write_report(db, o, out), bb::usage_error);
}

} // namespace
