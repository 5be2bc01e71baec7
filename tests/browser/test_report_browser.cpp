// bankbench report opened in headless Chromium (Debian's `chromium`): the charts render (SVG in the
// DOM, a screenshot that is not blank) and the console stays silent. Skipped without Chromium.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
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
  EXPECT_GE(count(dom.dom, "class=\"bar\""), 50U);
  EXPECT_GE(count(dom.dom, "class=\"point\""), 20U);
  for (const char* title : {"ld wf/req by variant", "median us against n", "ld wf/req across GPUs",
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
