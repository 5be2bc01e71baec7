// report: one self-contained page, charts for every section, failures and regressions marked.
#include <gtest/gtest.h>

#include <filesystem>
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

// The rows of the annotated source view's block whose summary starts with `title`.
std::string lines_block(const std::string& html, const std::string& title) {
  const auto start = html.find("<details open><summary>" + title);
  if (start == std::string::npos) return "";
  return html.substr(start, html.find("</details>", start) - start);
}

TEST(render_report, annotates_the_source_lines_of_configurations_with_line_data) {
  temp_folder tmp;
  std::filesystem::copy_file(BB_SOURCE_DIR "/tests/data/lines/h100-transpose-regression.sqlite",
                             tmp.file("lines.sqlite"));
  const auto db = bb::store::database::open_existing(tmp.file("lines.sqlite"));
  std::ostringstream out;
  write_report(db, report_options{}, out);
  const std::string html = out.str();
  EXPECT_EQ(occurrences(html, "<h3>Source lines</h3>"), 1U);
  // Run 3 is the newest, run 2 the one its regressions are judged against; run 1 is not shown.
  EXPECT_EQ(html.find("<summary>run 1,"), std::string::npos);
  const std::string padded = lines_block(html, "run 2, seq 4: padded block_rows=8 n=1024 tile=32: excess 32768");
  ASSERT_FALSE(padded.empty()) << html;
  // Line 38 took every wavefront beyond the ideal: the full shade; line 30 none and no shade.
  const std::regex line_38(
      R"re(<tr style="background: rgba\(192, 0, 0, 0\.600\)"><td>[^<]*:38</td><td><code>[^<]*</code></td>)re"
      R"re(<td>[^<]+</td><td class="num">\d+</td><td class="num">\d+</td><td class="num">\d+</td>)re"
      R"re(<td class="num">32768</td><td class="num">100\.0%</td></tr>)re");
  EXPECT_TRUE(std::regex_search(padded, line_38)) << padded;
  EXPECT_TRUE(std::regex_search(padded, std::regex(R"(<tr><td>[^<]*:30</td>)"))) << padded;
  // Lines in source order: 30 before 38.
  EXPECT_LT(padded.find(":30</td>"), padded.find(":38</td>"));
  EXPECT_NE(padded.find("conflicts no address caused"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
}

TEST(render_report, a_database_without_line_data_gets_no_source_view) {
  temp_folder tmp;
  build_fixture(tmp.file("f.sqlite"));
  const auto db = bb::store::database::open_existing(tmp.file("f.sqlite"));
  std::ostringstream out;
  write_report(db, report_options{}, out);
  const std::string html = out.str();
  ASSERT_NE(html.find("Regressions against the previous run"), std::string::npos);
  EXPECT_EQ(html.find("Source lines"), std::string::npos);
  EXPECT_EQ(html.find("<details"), std::string::npos);
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

// A model run of variants the model cannot predict checked no expectation: the report says so,
// with a note under the empty heading, and never "every expectation was met".
TEST(render_report, expectations_never_checked_are_not_reported_as_met) {
  temp_folder tmp;
  {
    auto db = bb::store::database::open(tmp.file("m.sqlite"));
    const auto gpu = db.upsert_gpu(model_gpu());
    bb::store::run_record r;
    r.started_at = "2026-11-01T10:00:00.000Z";
    r.host = "h";
    r.git_commit = k_commit_1;
    r.bankbench_version = "0.1.0";
    r.experiment_name = "source_transpose";
    r.experiment_path = "experiments/source/transpose.yaml";
    r.experiment_text = "name: source_transpose\n";
    r.experiment_sha256 = std::string(64, 'a');
    r.command_line = "bankbench run --backend model experiments/source/transpose.yaml";
    r.metric_set = "bank_conflicts";
    const auto run = db.begin_run(gpu, r);
    bb::store::configuration_record c;
    c.variant = "source_transpose/naive";
    c.family = "source";
    c.params_json = "{\"n\":1024}";
    c.status = bb::config_status::not_modelled;
    c.reason = "source variants have no access plan";
    db.add_configuration(run, c);
    db.finish_run(run, bb::run_status::completed);
  }
  const auto db = bb::store::database::open_existing(tmp.file("m.sqlite"));
  std::ostringstream out;
  write_report(db, report_options{}, out);
  const std::string html = out.str();
  EXPECT_NE(html.find("<p><span class=\"badge\">none checked</span> no expectation of these runs was checked</p>"),
            std::string::npos);
  EXPECT_EQ(html.find("every expectation"), std::string::npos);
  EXPECT_NE(html.find("predicted by the bank model</h3>\n<p class=\"note\">no predictions: the bank model does not "
                      "predict these variants (not modelled); run the experiment on a GPU to measure them</p>"),
            std::string::npos)
      << html;
}

TEST(render_report, expectations_that_passed_are_counted) {
  temp_folder tmp;
  fixture_options o;
  o.planted_regression = false;
  build_fixture(tmp.file("f.sqlite"), o);
  const auto db = bb::store::database::open_existing(tmp.file("f.sqlite"));
  std::ostringstream out;
  write_report(db, report_options{}, out);
  // runs 5 (H200), 3 (RTX 4090) and 4 (model): nine configurations with one expectation each
  EXPECT_NE(out.str().find("<span class=\"badge ok\">none</span> every expectation of these runs was met (27 "
                           "checked)</p>"),
            std::string::npos);
}

} // namespace
