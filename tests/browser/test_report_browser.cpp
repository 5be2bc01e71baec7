// bankbench report opened in headless Chromium (Debian's `chromium`): the charts render (SVG in the
// DOM, a screenshot that is not blank) and the console stays silent. Skipped without Chromium.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <fstream>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

#if BB_HAVE_PNG
#include <png.h>
#endif

#include "../cli/cli_runner.hpp"
#include "../data/results/fixtures.hpp"
#include "../data/results/test_helpers.hpp"

namespace {

using namespace bb::test::results;

// BB_CHROMIUM names the browser to use ("none": as if there were none); else the first on PATH.
std::string chromium() {
  if (const char* chosen = std::getenv("BB_CHROMIUM"); chosen != nullptr)
    return std::string(chosen) == "none" ? "" : chosen;
  for (const char* name : {"chromium", "chromium-browser"}) {
    const std::string probe = std::string("command -v ") + name + " >/dev/null 2>&1";
    if (std::system(probe.c_str()) == 0) return name;
  }
  return "";
}

struct page {
  std::string dom, log;
};

// One headless run: --dump-dom (stdout) or --screenshot, with the browser's log on stderr.
page open(const std::string& browser, const std::string& html, const temp_folder& tmp, const std::string& action) {
  const std::string profile = tmp.file("profile-" + std::to_string(std::rand()));
  const std::string cmd = "timeout 120 " + browser +
                          " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
                          " --disable-background-networking --disable-component-update --disable-sync"
                          " --user-data-dir='" +
                          profile + "' --enable-logging=stderr --v=0 --window-size=1200,2000 " + action + " 'file://" +
                          html + "' >'" + tmp.file("dom.txt") + "' 2>'" + tmp.file("log.txt") + "'";
  const int status = std::system(cmd.c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << cmd << "\n" << read_file(tmp.file("log.txt"));
  return {read_file(tmp.file("dom.txt")), read_file(tmp.file("log.txt"))};
}

// Messages the page wrote to the console, errors included: Chromium logs them as "...:CONSOLE:1]"
// (older releases "...:CONSOLE(1)]").
std::vector<std::string> console_messages(const std::string& log) {
  static const std::regex line(R"([^\n]*:CONSOLE[:(][^\n]*)");
  std::vector<std::string> out;
  for (std::sregex_iterator it(log.begin(), log.end(), line), end; it != end; ++it) out.push_back(it->str());
  return out;
}

// Standard deviation of the grey levels (0-255) of a PNG; -1 when it cannot be read.
double grey_stddev(const std::string& path) {
#if BB_HAVE_PNG
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (png_image_begin_read_from_file(&image, path.c_str()) == 0) return -1;
  image.format = PNG_FORMAT_GRAY;
  std::vector<png_byte> pixels(PNG_IMAGE_SIZE(image));
  if (png_image_finish_read(&image, nullptr, pixels.data(), 0, nullptr) == 0) return -1;
  double sum = 0, sum_sq = 0;
  for (const png_byte p : pixels) {
    sum += p;
    sum_sq += static_cast<double>(p) * p;
  }
  const double n = static_cast<double>(pixels.size());
  return std::sqrt(std::max(0.0, sum_sq / n - (sum / n) * (sum / n)));
#else
  (void)path;
  return -1;
#endif
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

// A script, added at the end of a copy of the report, that measures every text of every chart in
// the laid-out page and writes into the DOM how many it measured and each one that leaves its chart.
constexpr const char* k_measure_texts = R"(<script>
(() => {
  const out = [];
  let texts = 0;
  for (const svg of document.querySelectorAll('svg.chart')) {
    const box = svg.getBoundingClientRect();
    for (const t of svg.querySelectorAll('text')) {
      const r = t.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      ++texts;
      if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5)
        out.push(svg.getAttribute('aria-label') + ': "' + t.textContent + '" at ' + [r.left, r.top, r.right, r.bottom].map(Math.round) +
                 ' outside ' + [box.left, box.top, box.right, box.bottom].map(Math.round));
    }
  }
  const p = document.createElement('pre');
  p.id = 'measured';
  p.textContent = 'texts measured: ' + texts + '\n' + out.map(o => 'OVERFLOW ' + o).join('\n');
  document.body.appendChild(p);
})();
</script>)";

// The number after "texts measured: " in the dumped DOM, and the overflow lines.
std::pair<int, std::vector<std::string>> measured_texts(const std::string& dom) {
  const std::string mark = "<pre id=\"measured\">texts measured: "; // the script's output, not its source
  const auto at = dom.find(mark);
  if (at == std::string::npos) return {-1, {}};
  const int n = std::atoi(dom.c_str() + at + mark.size());
  std::vector<std::string> overflows;
  static const std::regex line("OVERFLOW [^\n<]*");
  for (std::sregex_iterator it(dom.begin() + static_cast<std::ptrdiff_t>(at), dom.end(), line), end; it != end; ++it)
    overflows.push_back(it->str());
  return {n, overflows};
}

// `html` with the measuring script before </body>, written as `copy`.
void with_measuring_script(const std::string& html, const std::string& copy) {
  std::string text = read_file(html);
  const auto end = text.rfind("</body>");
  ASSERT_NE(end, std::string::npos);
  text.insert(end, k_measure_texts);
  std::ofstream(copy) << text;
}

// BB_REPORT_SCREENSHOTS=DIR keeps a picture of the page as DIR/name, for people to look at.
void keep_screenshot(const std::string& browser, const std::string& html, const temp_folder& tmp,
                     const std::string& name) {
  if (const char* dir = std::getenv("BB_REPORT_SCREENSHOTS"); dir != nullptr)
    open(browser, html, tmp, "--screenshot='" + std::string(dir) + "/" + name + "'");
}

class browser : public ::testing::Test {
protected:
  void SetUp() override {
    m_browser = chromium();
    if (m_browser.empty()) GTEST_SKIP() << "SKIPPED: chromium is not installed (apt-get install chromium)";
    if (!BB_HAVE_PNG) GTEST_SKIP() << "SKIPPED: built without libpng (apt-get install libpng-dev)";
  }
  std::string m_browser;
  temp_folder m_tmp;
};

TEST_F(browser, the_checks_catch_a_console_error_and_a_blank_page) {
  // The detectors themselves: a page with a script error and an empty page must fail them.
  const std::string bad = m_tmp.file("bad.html"), blank = m_tmp.file("blank.html");
  std::ofstream(bad)
      << "<!DOCTYPE html><html><body><p>x</p><script>console.error('planted'); nope();</script></body></html>";
  std::ofstream(blank) << "<!DOCTYPE html><html><body></body></html>";
  const auto messages = console_messages(open(m_browser, bad, m_tmp, "--dump-dom").log);
  ASSERT_EQ(messages.size(), 2U);
  EXPECT_NE(messages[1].find("Uncaught ReferenceError: nope is not defined"), std::string::npos) << messages[1];
  open(m_browser, blank, m_tmp, "--screenshot='" + m_tmp.file("blank.png") + "'");
  EXPECT_GE(grey_stddev(m_tmp.file("blank.png")), 0);
  EXPECT_LT(grey_stddev(m_tmp.file("blank.png")), 1);
}

TEST_F(browser, report_renders_its_charts_with_a_silent_console) {
  build_fixture(m_tmp.file("f.sqlite"));
  const std::string html = m_tmp.file("report.html");
  const auto r = bb::test::run_cli("--db '" + m_tmp.file("f.sqlite") + "' report --out '" + html + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;

  const page dom = open(m_browser, html, m_tmp, "--dump-dom");
  EXPECT_EQ(count(dom.dom, "<svg "), 9U);
  EXPECT_GE(count(dom.dom, "class=\"bar\""), 40U); // across GPUs; by variant, n alone varies: lines
  EXPECT_GE(count(dom.dom, "class=\"point\""), 20U);
  for (const char* title : {"ld wf/req against n", "median us against n", "ld wf/req across GPUs",
                            "measured against predicted wavefronts per request"})
    EXPECT_NE(dom.dom.find(title), std::string::npos) << title;
  EXPECT_EQ(count(dom.dom, "<tr class=\"bad\">"), 3U); // two failed expectations, one regression
  EXPECT_TRUE(console_messages(dom.log).empty()) << dom.log;
  EXPECT_EQ(dom.log.find("net::ERR"), std::string::npos) << dom.log; // nothing fetched

  const page shot = open(m_browser, html, m_tmp, "--screenshot='" + m_tmp.file("report.png") + "'");
  EXPECT_TRUE(console_messages(shot.log).empty()) << shot.log;
  const double spread = grey_stddev(m_tmp.file("report.png"));
  EXPECT_GT(spread, 20) << "the screenshot is (nearly) blank";
  std::printf("screenshot %s: grey-level standard deviation %.1f\n", m_tmp.file("report.png").c_str(), spread);
}

} // namespace

namespace {

TEST_F(browser, the_measuring_script_catches_a_label_that_leaves_its_chart) {
  const std::string page_file = m_tmp.file("clipped.html"), measured = m_tmp.file("clipped-measured.html");
  std::ofstream(page_file)
      << "<!DOCTYPE html><html><body><svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" "
         "width=\"200\" height=\"100\" aria-label=\"planted\"><text x=\"10\" y=\"20\">inside</text>"
         "<text transform=\"translate(20 90) rotate(-30)\" text-anchor=\"end\">n=4096 tile=32 "
         "type=float</text></svg></body></html>";
  with_measuring_script(page_file, measured);
  const auto [texts, overflows] = measured_texts(open(m_browser, measured, m_tmp, "--dump-dom").dom);
  EXPECT_EQ(texts, 2);
  ASSERT_EQ(overflows.size(), 1U);
  EXPECT_NE(overflows[0].find("planted: \"n=4096 tile=32 type=float\""), std::string::npos) << overflows[0];
}

TEST_F(browser, no_chart_text_leaves_its_chart_in_the_fixture_report) {
  build_fixture(m_tmp.file("f.sqlite"));
  const std::string html = m_tmp.file("report.html"), measured = m_tmp.file("measured.html");
  ASSERT_EQ(bb::test::run_cli("--db '" + m_tmp.file("f.sqlite") + "' report --out '" + html + "'").exit_code, 0);
  with_measuring_script(html, measured);
  const page dom = open(m_browser, measured, m_tmp, "--dump-dom");
  const auto [texts, overflows] = measured_texts(dom.dom);
  EXPECT_GT(texts, 100) << dom.dom.substr(0, 500);
  keep_screenshot(m_browser, html, m_tmp, "report-fixture.png");
  EXPECT_TRUE(overflows.empty()) << overflows.size()
                                 << " overflow(s), the first: " << (overflows.empty() ? "" : overflows[0]);
  EXPECT_TRUE(console_messages(dom.log).empty()) << dom.log;
}

TEST_F(browser, the_default_suite_on_the_model_has_line_charts_heat_maps_and_no_overflow) {
  const std::string db = m_tmp.file("model.sqlite");
  const auto run = bb::test::run_cli("--db '" + db + "' run --backend model -q", "CUDA_VISIBLE_DEVICES=");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string html = m_tmp.file("model.html"), measured = m_tmp.file("model-measured.html");
  ASSERT_EQ(bb::test::run_cli("--db '" + db + "' report --out '" + html + "'").exit_code, 0);
  const std::string text = read_file(html);
  EXPECT_GE(count(text, "class=\"chart heat-map\""), 4U);    // stride x width, type x pitch, ...
  EXPECT_GE(count(text, "class=\"chart line-chart\""), 10U); // a numeric size swept alone
  EXPECT_EQ(count(text, "scatter-chart"), 0U) << "the model is never plotted against itself";
  EXPECT_NE(text.find("every value is 0"), std::string::npos) << "an all-zero chart says so";
  EXPECT_NE(text.find("not modelled (no access plan, or kernel code the model cannot follow; a GPU run measures it): "
                      "memcpy"),
            std::string::npos);
  with_measuring_script(html, measured);
  const page dom = open(m_browser, measured, m_tmp, "--dump-dom");
  const auto [texts, overflows] = measured_texts(dom.dom);
  EXPECT_GT(texts, 2000);
  EXPECT_TRUE(overflows.empty()) << overflows.size()
                                 << " overflow(s), the first: " << (overflows.empty() ? "" : overflows[0]);
  EXPECT_TRUE(console_messages(dom.log).empty()) << dom.log;
  keep_screenshot(m_browser, html, m_tmp, "report-model-suite.png");
}

} // namespace
