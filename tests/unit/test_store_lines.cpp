// Schema 8's per-line counters: stored and read back as written, replaced on a second write, and a
// version-7 database brought forward with its rows and then able to hold lines.
#include <gtest/gtest.h>

#include <string>

#include "../data/results/lines_fixture.hpp"
#include "../data/results/test_helpers.hpp"
#include "runner/common/error.hpp"
#include "runner/store/database.hpp"
#include "runner/store/lines.hpp"

namespace {

using namespace bb::test::results;
using namespace bb::test::lines;
using bb::store::database;
using bb::store::lines_status;

std::int64_t configuration_id(const std::string& db, int run, int seq) {
  return std::stoll(scalar(db, "SELECT id FROM configurations WHERE run_id = " + std::to_string(run) +
                                   " AND seq = " + std::to_string(seq)));
}

TEST(store_lines, rows_read_back_as_they_were_written) {
  temp_folder tmp;
  const std::string path = tmp.file("lines.sqlite");
  const std::string source = build_lines_fixture(path, tmp.path().string());
  const auto db = database::open_existing(path);
  // Run 1 was not asked for its lines.
  EXPECT_FALSE(bb::store::read_lines(db, configuration_id(path, 1, 0)).has_value());

  const auto two_way = bb::store::read_lines(db, configuration_id(path, 2, 0));
  ASSERT_TRUE(two_way.has_value());
  EXPECT_EQ(two_way->status, lines_status::ok);
  EXPECT_EQ(two_way->kernel, "_Z7two_wayPfi");
  EXPECT_EQ(two_way->note, "");
  EXPECT_DOUBLE_EQ(two_way->collect_ms, 550);
  ASSERT_EQ(two_way->rows.size(), 5U);
  const auto& sts = two_way->rows[0];
  EXPECT_EQ(sts.pc, 0x180U);
  EXPECT_EQ(sts.file, source);
  EXPECT_EQ(sts.line, 18);
  EXPECT_EQ(sts.opcode, "STS");
  EXPECT_EQ(sts.kind, "sts");
  EXPECT_EQ(sts.executions, 1024U);
  EXPECT_EQ(sts.threads, 32768U);
  EXPECT_EQ(sts.wavefronts, 2048U);
  EXPECT_EQ(sts.ideal, 1024U);
  EXPECT_EQ(sts.excess(), 1024U);
  for (std::size_t i = 1; i < 5; ++i) {
    EXPECT_EQ(two_way->rows[i].pc, 0x240U + 0x10U * (i - 1)) << i; // read in pc order
    EXPECT_EQ(two_way->rows[i].line, 21);
    EXPECT_EQ(two_way->rows[i].opcode, "LDS");
    EXPECT_EQ(two_way->rows[i].excess(), 1024U);
  }
  EXPECT_EQ(scalar(path, "SELECT instructions FROM line_collections WHERE configuration_id = " +
                             std::to_string(configuration_id(path, 2, 0))),
            "5");

  const auto hist = bb::store::read_lines(db, configuration_id(path, 2, 1));
  ASSERT_TRUE(hist.has_value());
  ASSERT_EQ(hist->rows.size(), 3U);
  EXPECT_EQ(hist->rows[1].file, "device_atomic_functions.hpp");
  EXPECT_EQ(hist->rows[1].line, 112);
  EXPECT_EQ(hist->rows[1].kind, "atoms");
  EXPECT_EQ(hist->rows[1].excess(), 0U);

  const auto plain = bb::store::read_lines(db, configuration_id(path, 2, 2));
  ASSERT_TRUE(plain.has_value());
  EXPECT_EQ(plain->status, lines_status::no_line_info);
  EXPECT_EQ(plain->note, "the kernel carries no line info; compile it with -lineinfo");
  EXPECT_TRUE(plain->rows.empty());
}

TEST(store_lines, a_second_collection_replaces_the_first_and_an_unknown_configuration_is_refused) {
  temp_folder tmp;
  const std::string path = tmp.file("lines.sqlite");
  const std::string source = build_lines_fixture(path, tmp.path().string());
  auto db = database::open(path);
  auto again = hist_lines(source);
  again.rows.pop_back();
  bb::store::add_lines(db, 2, 0, again);
  const auto read = bb::store::read_lines(db, configuration_id(path, 2, 0));
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->kernel, "_Z4histPj");
  EXPECT_EQ(read->rows.size(), 2U);
  EXPECT_EQ(scalar(path, "SELECT count(*) FROM line_collections"), "3");
  EXPECT_EQ(scalar(path, "SELECT count(*) FROM line_counters"), "5"); // 2 here, hist's 3
  try {
    bb::store::add_lines(db, 2, 9, again);
    FAIL() << "lines of a configuration that is not stored were written";
  } catch (const bb::store_error& e) {
    EXPECT_NE(std::string(e.what()).find("recording the lines of configuration 9 of run 2: no such configuration"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(scalar(path, "SELECT count(*) FROM line_counters"), "5");
}

TEST(store_lines, version_7_database_is_brought_forward_and_then_takes_lines) {
  temp_folder tmp;
  const std::string path = tmp.file("v7.sqlite");
  {
    auto db = database::open(path);
    const auto run = write_probe_run(db, "2026-11-20T10:00:00.000Z");
    db.add_configuration(run, configuration(0, "two_way", true));
    db.finish_run(run, bb::run_status::completed);
  }
  // Version 8 only added the two tables and version 9 four columns of runs: without them, and with
  // its number, the file is version 7.
  exec(path, "DROP TABLE line_counters; DROP TABLE line_collections; ALTER TABLE runs DROP COLUMN kind; "
             "ALTER TABLE runs DROP COLUMN working_directory; ALTER TABLE runs DROP COLUMN program_exit; "
             "ALTER TABLE runs DROP COLUMN note; PRAGMA user_version = 7");
  const std::string metrics = scalar(path, "SELECT count(*) FROM metrics");
  {
    // Opened read-only, it stays version 7 and simply has no lines.
    const auto old = database::open_read_only(path);
    EXPECT_EQ(old.user_version(), 7);
    EXPECT_FALSE(bb::store::read_lines(old, 1).has_value());
  }
  EXPECT_EQ(scalar(path, "PRAGMA user_version"), "7");
  auto db = database::open(path);
  EXPECT_EQ(db.user_version(), 9);
  EXPECT_EQ(scalar(path, "SELECT count(*) FROM line_collections"), "0");
  EXPECT_EQ(scalar(path, "SELECT count(*) FROM metrics"), metrics);
  EXPECT_EQ(scalar(path, "SELECT variant FROM configurations"), "source/two_way");
  bb::store::add_lines(db, 1, 0, two_way_lines(tmp.file("probe.cu")));
  const auto read = bb::store::read_lines(db, 1);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->rows.size(), 5U);
  EXPECT_EQ(read->rows.back().pc, 0x270U);
  EXPECT_EQ(scalar(path, "PRAGMA integrity_check"), "ok");
  EXPECT_EQ(scalar(path, "PRAGMA foreign_key_check"), "");
}

} // namespace
