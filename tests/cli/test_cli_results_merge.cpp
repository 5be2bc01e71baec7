// bankbench merge: databases from two machines into one; twice adds nothing; sources untouched.
#include <gtest/gtest.h>

#include "../data/results/fixtures.hpp"
#include "../data/results/test_helpers.hpp"
#include "cli_runner.hpp"

namespace {

using bb::test::run_cli;
using namespace bb::test::results;

class cli_merge : public ::testing::Test {
protected:
  void SetUp() override {
    build_fixture(m_tmp.file("lab-a.sqlite"));
    fixture_options b;
    b.host = "lab-b";
    b.hour_offset = 6;
    b.planted_regression = false;
    build_fixture(m_tmp.file("lab-b.sqlite"), b);
  }
  bb::test::cli_result merge(const std::string& sources) {
    return run_cli("merge " + sources + " --into '" + m_tmp.file("all/bankbench.sqlite") + "'");
  }
  std::string sources() const { return "'" + m_tmp.file("lab-a.sqlite") + "' '" + m_tmp.file("lab-b.sqlite") + "'"; }
  std::string totals() const {
    std::string out;
    for (const char* t : {"gpus", "runs", "configurations", "metrics", "timing_samples", "expectations"})
      out += scalar(m_tmp.file("all/bankbench.sqlite"), std::string("SELECT count(*) FROM ") + t) + " ";
    return out;
  }
  std::string normalised(std::string text) const {
    for (const auto& [path, name] :
         {std::pair{m_tmp.file("lab-a.sqlite"), "lab-a.sqlite"}, std::pair{m_tmp.file("lab-b.sqlite"), "lab-b.sqlite"}})
      for (auto pos = text.find(path); pos != std::string::npos; pos = text.find(path))
        text.replace(pos, path.size(), name);
    return text;
  }
  temp_folder m_tmp;
};

TEST_F(cli_merge, twice_adds_nothing_the_second_time) {
  const std::string a = read_file(m_tmp.file("lab-a.sqlite")), b = read_file(m_tmp.file("lab-b.sqlite"));
  auto r = merge(sources());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_golden("merge_first.txt", normalised(r.out));
  const std::string once = totals();
  EXPECT_EQ(once, "3 11 99 5904 810 99 ");
  r = merge(sources());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_golden("merge_second.txt", normalised(r.out));
  EXPECT_EQ(totals(), once);
  // Sources are read, never written.
  EXPECT_EQ(read_file(m_tmp.file("lab-a.sqlite")), a);
  EXPECT_EQ(read_file(m_tmp.file("lab-b.sqlite")), b);
  EXPECT_FALSE(fs::exists(m_tmp.file("lab-a.sqlite-wal")));
  // The merged database answers questions across both machines.
  r = run_cli("--db '" + m_tmp.file("all/bankbench.sqlite") + "' regress -b 1 -c 6");
  EXPECT_EQ(r.exit_code, 1) << r.err;
}

TEST_F(cli_merge, a_foreign_or_newer_source_stops_it_before_anything_is_written) {
  exec(m_tmp.file("shop.sqlite"), "CREATE TABLE customers (id INTEGER PRIMARY KEY)");
  auto r = merge(sources() + " '" + m_tmp.file("shop.sqlite") + "'");
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_NE(r.err.find("is not a bankbench database"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(m_tmp.file("all/bankbench.sqlite")));
  exec(m_tmp.file("lab-b.sqlite"), "PRAGMA user_version = 10");
  r = merge(sources());
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_NE(r.err.find("written by a newer bankbench (schema 10"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(m_tmp.file("all/bankbench.sqlite")));
}

TEST_F(cli_merge, the_destination_cannot_be_a_source) {
  const auto r = run_cli("merge '" + m_tmp.file("lab-a.sqlite") + "' --into '" + m_tmp.file("lab-a.sqlite") + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is the destination"), std::string::npos) << r.err;
}

} // namespace
