// bankbench report writes one HTML file; tests/browser renders it in Chromium.
#include <gtest/gtest.h>

#include "../data/results/fixtures.hpp"
#include "../data/results/test_helpers.hpp"
#include "cli_runner.hpp"

namespace {

using bb::test::run_cli;
using namespace bb::test::results;

TEST(cli_report, writes_a_self_contained_page) {
  temp_folder tmp;
  build_fixture(tmp.file("f.sqlite"));
  const std::string out = tmp.file("site/report.html");
  const auto r = run_cli("--db '" + tmp.file("f.sqlite") + "' report --out '" + out + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "wrote " + out + ": 1 experiment, 9 charts, 2 failed expectations, 1 regression\n");
  const std::string html = read_file(out);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0U);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
}

TEST(cli_report, an_empty_database_says_so) {
  temp_folder tmp;
  { auto db = bb::store::database::open(tmp.file("empty.sqlite")); }
  const auto r = run_cli("--db '" + tmp.file("empty.sqlite") + "' report --out '" + tmp.file("r.html") + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(read_file(tmp.file("r.html")).find("the database holds no runs yet"), std::string::npos);
}

} // namespace
