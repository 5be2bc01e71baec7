// Opening databases: the schema of a new one, upgrades, and files refused without a byte changed.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <thread>
#include <unistd.h>

#include "runner/common/error.hpp"
#include "runner/store/database.hpp"
#include "runner/store/schema.hpp"
#include "runner/store/sqlite.hpp"

namespace bb::embedded {
extern const char store_schema[];
}

namespace {

namespace fs = std::filesystem;
using bb::store::database;

/// A folder of its own for each test (tests may run in parallel processes), removed after.
class store_schema : public ::testing::Test {
protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    m_dir = fs::temp_directory_path() / ("bb_test_store_schema_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(m_dir, ec);
  }
  [[nodiscard]] std::string file(const std::string& name) const { return (m_dir / name).string(); }

  fs::path m_dir;
};

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

/// A raw connection for making files by hand.
struct raw_db {
  explicit raw_db(const std::string& path) { EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK); }
  ~raw_db() { sqlite3_close(db); }
  void exec(const char* sql) const {
    ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  }
  sqlite3* db = nullptr;
};

std::string text_of(sqlite3* db, const char* sql) {
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql, -1, &st, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  std::string out;
  if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0) != nullptr)
    out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  return out;
}

std::set<std::string> names_of(sqlite3* db, const char* type) {
  const std::string sql = std::string("SELECT name FROM sqlite_master WHERE type = '") + type + "'";
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK);
  std::set<std::string> names;
  while (sqlite3_step(st) == SQLITE_ROW) names.insert(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
  sqlite3_finalize(st);
  return names;
}

/// The message of the bb::store_error that `open` throws for `path`.
template <class F> std::string refusal(F open) {
  try {
    open();
  } catch (const bb::store_error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no bb::store_error was thrown";
  return {};
}

const std::set<std::string> k_tables = {"baselines",        "configurations", "expectations", "gpus",
                                        "line_collections", "line_counters",  "metrics",      "runs",
                                        "sessions",         "timing_samples", "timings"};
const std::set<std::string> k_views = {"baseline_values", "metric_summaries", "metrics_long", "results",
                                       "run_summaries"};

TEST_F(store_schema, new_database_is_created_with_the_whole_schema) {
  const std::string path = file("nested/folder/bankbench.sqlite");
  auto db = database::open(path);
  ASSERT_TRUE(fs::exists(path));
  EXPECT_EQ(db.user_version(), 9);
  EXPECT_EQ(db.user_version(), bb::store::schema::k_version);
  EXPECT_EQ(text_of(db.handle(), "PRAGMA application_id"), std::to_string(0x42424E4B));
  EXPECT_EQ(text_of(db.handle(), "PRAGMA journal_mode"), "wal");
  EXPECT_EQ(text_of(db.handle(), "PRAGMA foreign_keys"), "1");
  EXPECT_EQ(text_of(db.handle(), "PRAGMA synchronous"), "1"); // NORMAL
  // A busy handler of its own (store/sqlite.hpp, wait_when_busy) in place of busy_timeout's.
  EXPECT_EQ(text_of(db.handle(), "PRAGMA busy_timeout"), "0");
  std::set<std::string> tables = names_of(db.handle(), "table");
  EXPECT_EQ(tables, k_tables);
  EXPECT_EQ(names_of(db.handle(), "view"), k_views);
  EXPECT_EQ(db.path(), path);
}

TEST(store_sqlite, a_busy_writer_retries_after_50_us_doubling_to_2_ms_until_the_timeout) {
  using bb::store::sqlite::retry_delay_us;
  EXPECT_EQ(retry_delay_us(0, 10'000), 50);
  EXPECT_EQ(retry_delay_us(1, 10'000), 100);
  EXPECT_EQ(retry_delay_us(5, 10'000), 1600);
  EXPECT_EQ(retry_delay_us(6, 10'000), 2000);
  EXPECT_EQ(retry_delay_us(1000, 10'000), 2000);
  long waited = 0;
  int retries = 0;
  for (long us = retry_delay_us(0, 10'000); us >= 0; us = retry_delay_us(++retries, 10'000)) waited += us;
  EXPECT_LE(waited, 10'000'000);        // gives up at the timeout...
  EXPECT_GT(waited, 10'000'000 - 2000); // ...and not before
  EXPECT_EQ(retries, 5004);             // 6 doublings, then 4,998 retries of 2 ms
  EXPECT_EQ(retry_delay_us(0, 0), -1);
  EXPECT_EQ(retry_delay_us(-1, 10'000), -1);
}

TEST_F(store_schema, a_writer_waits_for_another_writers_transaction_and_then_commits) {
  const std::string path = file("shared.sqlite");
  auto db = database::open(path);
  raw_db other(path);
  other.exec("BEGIN IMMEDIATE");
  const auto t0 = std::chrono::steady_clock::now();
  std::thread holder([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(40));
    other.exec("COMMIT");
  });
  bb::store::session_record s;
  s.command_line = "bankbench run";
  const auto id = db.begin_session(s); // waits for the other transaction, then writes
  const auto waited = std::chrono::steady_clock::now() - t0;
  holder.join();
  EXPECT_GT(id, 0);
  EXPECT_GE(waited, std::chrono::milliseconds(40));
  EXPECT_EQ(text_of(db.handle(), "SELECT count(*) FROM sessions"), "1");
}

TEST_F(store_schema, schema_file_sets_the_version_this_build_knows) {
  raw_db raw(":memory:");
  raw.exec(bb::embedded::store_schema);
  EXPECT_EQ(text_of(raw.db, "PRAGMA user_version"), std::to_string(bb::store::schema::k_version));
  EXPECT_EQ(text_of(raw.db, "PRAGMA application_id"), std::to_string(bb::store::schema::k_application_id));
}

TEST_F(store_schema, reopening_keeps_the_data_and_the_version) {
  const std::string path = file("a.sqlite");
  std::int64_t id = 0;
  {
    auto db = database::open(path);
    bb::store::gpu_record g;
    g.uuid = "GPU-1";
    g.name = "test";
    id = db.upsert_gpu(g);
  }
  auto db = database::open_existing(path);
  EXPECT_EQ(db.user_version(), 9);
  ASSERT_EQ(db.gpus().size(), 1U);
  EXPECT_EQ(db.gpus()[0].id, id);
}

TEST_F(store_schema, moved_database_keeps_working) {
  auto first = database::open(file("m.sqlite"));
  database second = std::move(first);
  EXPECT_EQ(second.user_version(), 9);
  EXPECT_EQ(second.path(), file("m.sqlite"));
}

TEST_F(store_schema, newer_database_is_refused_and_left_unchanged) {
  const std::string path = file("x.sqlite");
  {
    auto db = database::open(path);
    ASSERT_EQ(sqlite3_exec(db.handle(), "PRAGMA user_version = 99", nullptr, nullptr, nullptr), SQLITE_OK);
  }
  const std::string before = read_bytes(path);
  EXPECT_EQ(refusal([&] { database::open(path); }),
            path + " was written by a newer bankbench (schema 99, this build knows 9); use a newer bankbench or "
                   "another --db");
  EXPECT_EQ(refusal([&] { database::open_existing(path); }),
            path + " was written by a newer bankbench (schema 99, this build knows 9); use a newer bankbench or "
                   "another --db");
  EXPECT_EQ(read_bytes(path), before);
}

// A database whose user_version was set back to 0 (by hand, or by a tool that copied its tables)
// would otherwise get the schema created again over its tables ("table gpus already exists").
TEST_F(store_schema, database_with_its_version_reset_is_refused_and_left_unchanged) {
  const std::string ours = file("reset.sqlite"), copied = file("copied.sqlite");
  {
    auto db = database::open(ours);
    ASSERT_EQ(sqlite3_exec(db.handle(), "PRAGMA user_version = 0", nullptr, nullptr, nullptr), SQLITE_OK);
  }
  {
    auto db = database::open(copied); // the tables, without application_id nor user_version
    ASSERT_EQ(sqlite3_exec(db.handle(), "PRAGMA user_version = 0; PRAGMA application_id = 0", nullptr, nullptr,
                           nullptr),
              SQLITE_OK);
  }
  for (const std::string& path : {ours, copied}) {
    const std::string before = read_bytes(path);
    const std::string expected = path +
                                 " looks like a bankbench database whose schema version was reset "
                                 "(user_version 0); it cannot be upgraded safely: restore it or use another --db";
    EXPECT_EQ(refusal([&] { database::open(path); }), expected);
    EXPECT_EQ(refusal([&] { database::open_existing(path); }), expected);
    EXPECT_EQ(refusal([&] { database::open_for_query(path); }), expected);
    EXPECT_EQ(refusal([&] { database::open_read_only(path); }), expected);
    EXPECT_EQ(read_bytes(path), before);
  }
  raw_db raw(ours);
  raw.exec("PRAGMA user_version = -2");
  EXPECT_NE(refusal([&] { database::open(ours); }).find("schema version was reset (user_version -2)"),
            std::string::npos);
}

TEST_F(store_schema, text_file_is_refused_and_left_unchanged) {
  const std::string path = file("notes.sqlite");
  std::string text;
  for (int i = 0; i < 200; ++i) text += "line " + std::to_string(i) + ": this is not a database at all\n";
  write_bytes(path, text);
  const std::string message = refusal([&] { database::open(path); });
  EXPECT_EQ(message.rfind(path + ": ", 0), 0U) << message;
  EXPECT_NE(message.find("file is not a database"), std::string::npos) << message;
  EXPECT_EQ(read_bytes(path), text);
  EXPECT_FALSE(fs::exists(path + "-wal"));
}

TEST_F(store_schema, foreign_sqlite_file_is_refused_and_left_unchanged) {
  const std::string path = file("other.sqlite");
  {
    raw_db raw(path);
    raw.exec("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers VALUES (1, 'a')");
  }
  const std::string before = read_bytes(path);
  const std::string message = refusal([&] { database::open(path); });
  EXPECT_EQ(message, path + " is not a bankbench database (application_id 0x00000000, expected 0x42424e4b; it "
                            "holds: customers); use another --db");
  EXPECT_EQ(read_bytes(path), before);
}

TEST_F(store_schema, sqlite_file_of_another_application_is_refused) {
  const std::string path = file("app.sqlite");
  {
    raw_db raw(path);
    raw.exec("PRAGMA application_id = 305419896"); // 0x12345678
  }
  const std::string before = read_bytes(path);
  const std::string message = refusal([&] { database::open(path); });
  EXPECT_NE(message.find("is not a bankbench database (application_id 0x12345678"), std::string::npos) << message;
  EXPECT_EQ(read_bytes(path), before);
}

TEST_F(store_schema, open_existing_refuses_a_missing_file_and_creates_nothing) {
  const std::string path = file("missing/none.sqlite");
  EXPECT_EQ(refusal([&] { database::open_existing(path); }), "no database at " + path + "; run `bankbench run` first");
  EXPECT_FALSE(fs::exists(file("missing")));
}

TEST_F(store_schema, hand_made_version_0_database_is_brought_up_to_date) {
  const std::string path = file("v0.sqlite");
  {
    raw_db raw(path);
    raw.exec("PRAGMA application_id = 1111641675; PRAGMA user_version = 0");
  }
  ASSERT_GT(fs::file_size(path), 0U);
  auto db = database::open(path);
  EXPECT_EQ(db.user_version(), 9);
  EXPECT_EQ(names_of(db.handle(), "table"), k_tables);
}

TEST_F(store_schema, empty_file_becomes_a_database) {
  const std::string path = file("empty.sqlite");
  write_bytes(path, "");
  auto db = database::open_existing(path);
  EXPECT_EQ(db.user_version(), 9);
  EXPECT_EQ(names_of(db.handle(), "table"), k_tables);
}

// The migration mechanism itself, with a made-up history: version 1 had table a(x); version 2
// added a column; version 3 a table.
class store_schema_upgrade : public store_schema {
protected:
  bb::store::schema::plan m_plan{3,
                                 "CREATE TABLE a (x, y); CREATE TABLE b (z)",
                                 {{2, "ALTER TABLE a ADD COLUMN y"}, {3, "CREATE TABLE b (z)"}}};

  void make_version_1(raw_db& raw) {
    raw.exec("PRAGMA application_id = 1111641675; PRAGMA user_version = 1; CREATE TABLE a (x)");
    raw.exec("INSERT INTO a VALUES (42)");
  }
};

TEST_F(store_schema_upgrade, applies_the_missing_migrations_in_order) {
  raw_db raw(file("old.sqlite"));
  make_version_1(raw);
  bb::store::schema::upgrade(raw.db, file("old.sqlite"), m_plan);
  EXPECT_EQ(text_of(raw.db, "PRAGMA user_version"), "3");
  EXPECT_EQ(text_of(raw.db, "SELECT count(*) FROM b"), "0");
  EXPECT_EQ(text_of(raw.db, "SELECT x || ',' || ifnull(y, 'null') FROM a"), "42,null");
}

TEST_F(store_schema_upgrade, a_failing_migration_changes_nothing) {
  m_plan.migrations[1].sql = "CREATE TABLE b (z); INSERT INTO no_such_table VALUES (1)";
  const std::string path = file("old.sqlite");
  raw_db raw(path);
  make_version_1(raw);
  const std::string message = refusal([&] { bb::store::schema::upgrade(raw.db, path, m_plan); });
  EXPECT_NE(message.find("upgrading the schema from version 2 to 3: no such table: no_such_table"), std::string::npos)
      << message;
  EXPECT_EQ(text_of(raw.db, "PRAGMA user_version"), "1");
  EXPECT_EQ(names_of(raw.db, "table"), (std::set<std::string>{"a"}));
  EXPECT_EQ(text_of(raw.db, "SELECT count(*) FROM pragma_table_info('a')"), "1"); // no column y
}

TEST_F(store_schema_upgrade, new_database_is_created_in_one_step) {
  raw_db raw(file("new.sqlite"));
  bb::store::schema::upgrade(raw.db, file("new.sqlite"), m_plan);
  EXPECT_EQ(text_of(raw.db, "PRAGMA user_version"), "3");
  EXPECT_EQ(text_of(raw.db, "PRAGMA application_id"), "1111641675");
  EXPECT_EQ(names_of(raw.db, "table"), (std::set<std::string>{"a", "b"}));
}

TEST_F(store_schema_upgrade, a_gap_in_the_migrations_is_an_error) {
  m_plan.migrations.erase(m_plan.migrations.begin());
  raw_db raw(file("old.sqlite"));
  make_version_1(raw);
  EXPECT_NE(refusal([&] {
              bb::store::schema::upgrade(raw.db, file("old.sqlite"), m_plan);
            }).find("no migration from version 1 to 2"),
            std::string::npos);
  EXPECT_EQ(text_of(raw.db, "PRAGMA user_version"), "1");
}

} // namespace
